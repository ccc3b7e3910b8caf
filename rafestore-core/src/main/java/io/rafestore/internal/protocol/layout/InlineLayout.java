package io.rafestore.internal.protocol.layout;

import io.rafestore.IntegrityException;
import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import java.io.InputStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A value carried inside the writer's signed log ({@link LogEntry.Coding#INLINE}): the stored bytes
 * (sealed, under the confidentiality option) are in the entry, so no holder stores anything, a read
 * fetches nothing (readM already brought the bytes, signed), verify has nothing to check beyond the
 * log and repair nothing to restore beyond the log. The bytes are still checked against the signed
 * hash before they are handed out, like any fetched value's.
 */
final class InlineLayout implements ValueLayout {
  /**
   * What {@link StoredValue#servedBy()} says of an inline value: the bytes came with readM's logs,
   * from no one cloud. Not a possible cloud id (ids are letters, digits, '-' and '_').
   */
  static final String SERVED_BY = "(inline)";

  private final LogEntry entry;

  InlineLayout(LogEntry entry) {
    this.entry = entry;
  }

  /**
   * The entry of a new inline value; {@code sealed} its key shares if the stored bytes are the
   * sealed value, else null.
   */
  static LogEntry entry(
      long timestamp,
      long createdAtMillis,
      String dataObject,
      long size,
      byte[] sha256,
      byte[] stored,
      KeyShares.Sealed sealed) {
    return LogEntry.inline(
        timestamp,
        createdAtMillis,
        dataObject,
        size,
        sha256,
        stored,
        sealed == null ? List.of() : sealed.holders(),
        sealed == null ? List.of() : sealed.hashes());
  }

  @Override
  public List<String> objectsOn(String holder) {
    return List.of();
  }

  @Override
  public List<String> allObjects() {
    return List.of();
  }

  @Override
  public List<String> objectsToDelete(String cloud, boolean nativeMultipart) {
    return List.of();
  }

  @Override
  public CompletableFuture<StoredValue> read(ValueRead r) {
    byte[] stored = entry.inlineUnsafe();
    if (stored.length != entry.storedSize() || !Sha256.matches(stored, entry.sha256Unsafe())) {
      // The writer signed both; only a writer's bug could get here.
      return CompletableFuture.failedFuture(
          new IntegrityException(
              "the inline bytes of '"
                  + r.key
                  + "' version "
                  + r.info.version()
                  + " do not match its signed hash",
              List.of()));
    }
    return WholeLayout.opened(
        r,
        CompletableFuture.completedFuture(
            new StoredValue(WholeLayout.storedInfo(r, entry), stored, SERVED_BY)));
  }

  @Override
  public CompletableFuture<byte[]> range(ValueRead r, long offset, int length) {
    return PartedRead.cut(r.info, offset, length, read(r));
  }

  @Override
  public InputStream stream(ValueRead r) {
    return PartedRead.streamOfWhole(r, () -> read(r));
  }

  // anticipate: nothing (the default); the bytes arrive with readM itself.

  @Override
  public List<Check> checksOn(String holder) {
    return List.of();
  }

  @Override
  public boolean holds(String holder, Check check, byte[] bytes) {
    return false;
  }

  @Override
  public Restore restore(Context ctx, Bound bound, Version version, String holder, String object) {
    // objectsOn is empty for every holder, so verify never asks for this.
    return new Restore(
        holder + ": nothing of inline version " + version,
        CompletableFuture.failedFuture(
            new IllegalStateException("an inline value stores no object to restore")));
  }
}
