package io.rafestore.internal.protocol.layout;

import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Whole replicas (RafeStore's default, DepSky-A): every holder stores the whole stored value as the
 * entry's data object, checked against the signed size and hash. A read asks the holder predicted
 * fastest, with hedges ({@link DataFetch}); repair copies the object from another holder whose
 * bytes match.
 */
public final class ReplicaLayout extends WholeLayout {
  ReplicaLayout(LogEntry entry) {
    super(entry);
  }

  /**
   * The entry of a value every one of {@code holders} stores whole (writeDo, DepSky-A), not sealed
   * ({@link KeyShares.Sealed#mark} seals it); {@code sha256} is the stored value's hash.
   */
  public static LogEntry entry(
      long timestamp,
      long createdAtMillis,
      String dataObject,
      long size,
      byte[] sha256,
      List<String> holders) {
    return LogEntry.replica(timestamp, createdAtMillis, dataObject, size, sha256, holders);
  }

  @Override
  CompletableFuture<StoredValue> fetchStored(ValueRead r) {
    return DataFetch.run(r.ctx, r.key, stored(r), entry.dataObject());
  }

  @Override
  public boolean holds(String holder, Check check, byte[] bytes) {
    // Under the confidentiality option holders keep the sealed value; the entry signs its hash.
    return bytes.length == entry.storedSize() && Sha256.matches(bytes, entry.sha256Unsafe());
  }

  @Override
  public Restore restore(Context ctx, Bound bound, Version version, String holder, String object) {
    return restoreCopy(ctx, bound, version, holder, "data", object, entry.storedSize());
  }

  /** One copy from a holder found right, put to every damaged holder ({@link #healCopies}). */
  @Override
  public List<Restore> heal(Context ctx, Bound bound, Version version, Health health) {
    return healCopies(ctx, bound, version, health, "data", entry.dataObject(), entry.storedSize());
  }
}
