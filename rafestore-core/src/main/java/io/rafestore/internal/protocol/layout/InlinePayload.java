package io.rafestore.internal.protocol.layout;

import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.ObjectKey;

/**
 * A new version written inline ({@link InlineLayout}): its stored bytes (sealed under the
 * confidentiality option, exactly as a whole value is, with its key shared among the clouds' log
 * envelopes) go into the writer's signed log, so the write uploads no data and is one metadata
 * round. The fresh data object name is the value's identity (sealing's associated data binds it)
 * and the name a later pack keeps; nothing is stored under it. Immutable once made; sealing and
 * hashing run on the caller's thread.
 */
public final class InlinePayload implements Payload {
  private final ObjectKey dataObject;
  private final long plainSize;
  private final KeyShares.Sealed sealed;
  private final byte[] stored;
  private final byte[] sha256;
  private final Placement placement;

  private InlinePayload(
      ObjectKey dataObject,
      long plainSize,
      KeyShares.Sealed sealed,
      byte[] stored,
      Placement placement) {
    this.placement = placement;
    this.dataObject = dataObject;
    this.plainSize = plainSize;
    this.sealed = sealed;
    this.stored = stored;
    this.sha256 = Sha256.hash(stored);
  }

  /**
   * Whether a value of {@code size} bytes is written inline under the client's settings (the
   * threshold, the budget for its stored size, the mode): the rule {@link Payload#of} applies.
   */
  static boolean fits(Context ctx, long size) {
    long stored = LogEntry.storedPartSize(size, ctx.settings.encryptValues());
    return ctx.settings.writesInline(size, stored);
  }

  /**
   * The inline payload of {@code value} (not to be modified afterwards) as a new version, placed
   * inline by {@code placement} ({@link Placement#inline()}).
   */
  static InlinePayload of(Context ctx, String key, byte[] value, Placement placement) {
    ObjectKey name = Names.freshDataObject(key, ctx.settings.writerId());
    KeyShares.Sealed sealed =
        ctx.settings.encryptValues() ? KeyShares.seal(ctx, key, name, value) : null;
    return new InlinePayload(
        name, value.length, sealed, sealed == null ? value : sealed.bytes(), placement);
  }

  @Override
  public ObjectKey dataObject() {
    return dataObject;
  }

  @Override
  public Placement placement() {
    return placement;
  }

  /** The bytes the log carries: what its inline budget counts. */
  public long storedSize() {
    return stored.length;
  }

  /** The key shares of a sealed value, for writeM's envelopes; null if not sealed. */
  public KeyShares.Sealed sealed() {
    return sealed;
  }

  /** The entry writeM appends: the stored bytes inside, sealed if the value is. */
  public LogEntry entry(long timestamp, long createdAtMillis) {
    return InlineLayout.entry(
        timestamp, createdAtMillis, dataObject.value(), plainSize, sha256, stored, sealed);
  }
}
