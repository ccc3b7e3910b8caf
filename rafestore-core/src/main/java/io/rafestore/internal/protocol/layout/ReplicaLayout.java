package io.rafestore.internal.protocol.layout;

import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import java.util.ArrayList;
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
    List<String> sources = new ArrayList<>(entry.holders());
    sources.remove(holder);
    Check whole = checksOn(holder).get(0);
    return new Restore(
        holder + ": data " + object + " of version " + version,
        Repairs.put(
            ctx,
            bound,
            holder,
            object,
            Repairs.firstValid(ctx, bound, this, sources, source -> whole, 0)));
  }

  /**
   * One copy fetched from a holder verify found right (fastest first, then those it knows nothing
   * about, never a damaged one), checked, and put to every damaged holder. No valid copy is written
   * to, so one pass repairs every holder while one valid copy is left.
   */
  @Override
  public List<Restore> heal(Context ctx, Bound bound, Version version, Health health) {
    List<String> damaged = new ArrayList<>();
    List<String> valid = new ArrayList<>();
    List<String> unknown = new ArrayList<>();
    for (String h : entry.holders()) {
      if (health.damagedOn(h, 0)) {
        damaged.add(h);
      } else if (health.validOn(h, 0)) {
        valid.add(h);
      } else {
        unknown.add(h);
      }
    }
    List<Restore> out = new ArrayList<>();
    if (damaged.isEmpty()) {
      return out;
    }
    List<String> sources = new ArrayList<>(ctx.model.fastestFirst(valid, entry.storedSize()));
    sources.addAll(unknown);
    Check whole = checksOn(damaged.get(0)).get(0);
    CompletableFuture<byte[]> copy =
        Repairs.firstValid(ctx, bound, this, sources, source -> whole, 0);
    for (String holder : damaged) {
      out.add(
          new Restore(
              holder + ": data " + entry.dataObject() + " of version " + version,
              Repairs.put(ctx, bound, holder, entry.dataObject(), copy)));
    }
    return out;
  }
}
