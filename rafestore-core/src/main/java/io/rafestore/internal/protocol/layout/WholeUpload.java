package io.rafestore.internal.protocol.layout;

import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.ObjectKey;
import java.util.List;

/**
 * What writeDo and writeDf send for a value written whole (one not in parts; {@link PartedPayload}
 * is the other), and the entry that names it once writeM runs: the layout of a new write, chosen
 * here from the settings so that the write itself names none. The stored value is the value, or
 * under the confidentiality option the value sealed ({@link KeyShares#seal}); it goes up as f+1
 * whole replicas ({@link ReplicaLayout}), or with erasure coding as one Reed-Solomon fragment per
 * slot ({@link ReedSolomonLayout}), each slot needing its own acknowledgement. Immutable once made;
 * sealing and coding run on the caller's thread, before anything is sent.
 */
public final class WholeUpload implements Payload {
  private final ObjectKey dataObject;
  private final long plainSize;
  private final KeyShares.Sealed sealed;
  private final byte[] stored;

  /** One fragment per slot, or null for replicas. */
  private final byte[][] fragments;

  private final int k;
  private final int slots;
  private final Placement placement;

  private WholeUpload(
      ObjectKey dataObject,
      long plainSize,
      KeyShares.Sealed sealed,
      byte[] stored,
      byte[][] fragments,
      int k,
      int slots,
      Placement placement) {
    this.placement = placement;
    this.dataObject = dataObject;
    this.plainSize = plainSize;
    this.sealed = sealed;
    this.stored = stored;
    this.fragments = fragments;
    this.k = k;
    this.slots = slots;
  }

  /**
   * The upload of {@code value} (not to be modified afterwards) of {@code key} as {@code
   * dataObject}, as this client's settings lay it out.
   */
  public static WholeUpload of(
      Context ctx, String key, ObjectKey dataObject, byte[] value, Placement placement) {
    // Sealing first: writeDo must upload only ciphertext, and AES-GCM (about 1 GB/s) costs less
    // than the hashing that follows.
    KeyShares.Sealed sealed =
        ctx.settings.encryptValues() ? KeyShares.seal(ctx, key, dataObject, value) : null;
    byte[] stored = sealed == null ? value : sealed.bytes();
    int k = placement.k();
    if (k > 0) {
      // Every fragment must exist before writeDo.
      byte[][] fragments = ReedSolomonLayout.encode(k, ctx.f(), stored);
      return new WholeUpload(
          dataObject, value.length, sealed, stored, fragments, k, fragments.length, placement);
    }
    return new WholeUpload(
        dataObject, value.length, sealed, stored, null, 0, ctx.f() + 1, placement);
  }

  /**
   * An upload of {@code bytes} exactly as given, as f+1 whole replicas under {@code object}: no
   * sealing, no coding (a pack of inline values, whose stored bytes are sealed already if they need
   * to be). It names no version: only {@link #stored()}, {@link #payload} and the slots are used.
   */
  public static WholeUpload raw(Context ctx, ObjectKey object, byte[] bytes) {
    // Replicas on the data clouds predicted fastest for the pack's size, as a fixed layout places
    // them (writeDf and replacements next in that order); under the cost objective on the cheapest
    // (a pack is background work: no caller waits for its upload).
    List<String> order =
        ctx.settings.objective().isCost() ? ctx.cheapestDataOrder(bytes.length) : List.of();
    Placement replicas = new Placement(false, 0, order, java.util.Optional.empty());
    return new WholeUpload(object, bytes.length, null, bytes, null, 0, ctx.f() + 1, replicas);
  }

  /**
   * The upload of a new version of {@code key} (the value not to be modified afterwards) under a
   * fresh data object name. Sealing and coding run here, on the caller's thread, before the write
   * starts: the client hands the result to writeDo, so a value passes the layout once on its way to
   * the write.
   */
  public static WholeUpload of(Context ctx, String key, byte[] value, Placement placement) {
    return of(ctx, key, Names.freshDataObject(key, ctx.settings.writerId()), value, placement);
  }

  @Override
  public ObjectKey dataObject() {
    return dataObject;
  }

  @Override
  public Placement placement() {
    return placement;
  }

  /**
   * Whether each slot carries its own bytes (a fragment), so that every slot needs an
   * acknowledgement of its own; otherwise every slot carries the same replica and any {@link
   * #slots} acknowledgements will do.
   */
  public boolean distinctSlots() {
    return fragments != null;
  }

  /** Uploads writeDo starts with: f+1 replicas, or one per fragment. */
  public int slots() {
    return slots;
  }

  /** What an upload for {@code slot} carries. */
  public byte[] payload(int slot) {
    return fragments == null ? stored : fragments[slot];
  }

  /** How many bytes one upload carries: the stored value, or one fragment. */
  public long uploadBytes() {
    return fragments == null ? stored.length : fragments[0].length;
  }

  /** The stored value, whose SHA-256 the entry signs. */
  public byte[] stored() {
    return stored;
  }

  /** The key shares of a sealed value, for writeM's envelopes; null if not sealed. */
  public KeyShares.Sealed sealed() {
    return sealed;
  }

  /**
   * The entry of this upload: {@code holders} the clouds that acknowledged it (for fragments, the
   * holder of each slot in slot order), {@code sha256} the stored value's hash; sealed if the value
   * is.
   */
  public LogEntry entry(long timestamp, long createdAtMillis, List<String> holders, byte[] sha256) {
    String name = dataObject.value();
    LogEntry plain =
        fragments == null
            ? ReplicaLayout.entry(timestamp, createdAtMillis, name, plainSize, sha256, holders)
            : ReedSolomonLayout.entry(
                timestamp, createdAtMillis, name, plainSize, sha256, holders, k, fragments);
    return sealed == null ? plain : sealed.mark(plain);
  }
}
