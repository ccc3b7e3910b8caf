package io.rafestore.internal.protocol.layout;

import io.rafestore.IntegrityException;
import io.rafestore.StoredValue;
import io.rafestore.ValueCache;
import io.rafestore.Version;
import io.rafestore.VersionInfo;
import io.rafestore.internal.protocol.context.Combine;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.context.ReadTier;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.spi.support.Futures;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * What the layouts of a value stored as one object per holder share (whole replicas and coded
 * pieces): each holder keeps the object named by the entry's data object; a range or a stream is
 * cut from the value read whole, because a ranged GET of one object could not be verified.
 */
abstract class WholeLayout implements ValueLayout {
  final LogEntry entry;

  WholeLayout(LogEntry entry) {
    this.entry = entry;
  }

  /**
   * Repair where every holder stores the same object {@code object} ({@code what}: data, a pack) of
   * {@code bytes} bytes: one copy fetched from a source ({@link Health.Split#sources}), checked
   * against the signed hash, and put to every damaged holder. No valid copy is written to, so one
   * pass repairs every holder while one valid copy is left.
   */
  final List<Restore> healCopies(
      Context ctx,
      Bound bound,
      Version version,
      Health health,
      String what,
      String object,
      long bytes) {
    Health.Split split = health.split(entry.holders(), 0);
    List<Restore> out = new java.util.ArrayList<>();
    if (split.damaged().isEmpty()) {
      return out;
    }
    Check whole = checksOn(split.damaged().get(0)).get(0);
    CompletableFuture<byte[]> copy =
        Repairs.firstValid(ctx, bound, this, split.sources(ctx, bytes), source -> whole, bytes);
    for (String holder : split.damaged()) {
      out.add(
          new Restore(
              holder + ": " + what + " " + object + " of version " + version,
              Repairs.put(ctx, bound, holder, object, copy)));
    }
    return out;
  }

  /**
   * {@code holder}'s copy of {@code object} (as {@link #healCopies} makes it) from any other holder
   * whose bytes match the signed hash, knowing nothing of the others.
   */
  final Restore restoreCopy(
      Context ctx,
      Bound bound,
      Version version,
      String holder,
      String what,
      String object,
      long bytes) {
    List<String> others = new java.util.ArrayList<>(entry.holders());
    others.remove(holder);
    List<String> sources = ctx.model.fastestFirst(others, bytes);
    Check whole = checksOn(holder).get(0);
    return new Restore(
        holder + ": " + what + " " + object + " of version " + version,
        Repairs.put(
            ctx,
            bound,
            holder,
            object,
            Repairs.firstValid(ctx, bound, this, sources, source -> whole, bytes)));
  }

  @Override
  public List<String> objectsOn(String holder) {
    return List.of(entry.dataObject());
  }

  @Override
  public List<String> allObjects() {
    return List.of(entry.dataObject());
  }

  @Override
  public List<String> objectsToDelete(String cloud, boolean nativeMultipart) {
    return List.of(entry.dataObject());
  }

  /**
   * The stored value, fetched from the holders and checked against the signed hashes, not yet
   * opened ({@link #opened}).
   */
  abstract CompletableFuture<StoredValue> fetchStored(ValueRead r);

  @Override
  public final CompletableFuture<StoredValue> read(ValueRead r) {
    CompletableFuture<StoredValue> anticipated =
        r.anticipated == null ? null : r.anticipated.takeWhole();
    if (anticipated != null && ReadTier.cacheable(entry)) {
      boolean evictedBefore = r.ctx.readTier.missed(unit(r));
      anticipated.thenAccept(sv -> r.ctx.readTier.store(unit(r), sv.value(), evictedBefore));
    }
    if (anticipated != null) {
      return opened(r, anticipated);
    }
    return opened(r, cachedOrFetched(r));
  }

  /**
   * The stored value from the read tier's cache (checked against the signed hash), or fetched (and
   * then kept there).
   */
  private CompletableFuture<StoredValue> cachedOrFetched(ValueRead r) {
    if (!ReadTier.cacheable(entry)) {
      return fetchStored(r);
    }
    VersionInfo stored = stored(r);
    return r.ctx.readTier.through(
        unit(r),
        bytes -> new StoredValue(stored, bytes, StoredValue.FROM_CACHE),
        () -> fetchStored(r),
        StoredValue::value);
  }

  @Override
  public CompletableFuture<byte[]> fetchUnit(ValueRead r, int part, Spread spread) {
    return Futures.relay(fetchStored(r), StoredValue::value);
  }

  private ValueCache.Unit unit(ValueRead r) {
    return ReadTier.unit(r.key, r.info.version(), entry, ValueCache.Unit.WHOLE);
  }

  /**
   * The stored value fetched before readM, as {@link #read} fetches it; nothing when the read
   * tier's cache holds it.
   */
  @Override
  public Optional<Anticipation> anticipate(ValueRead r, long offset) {
    long bytes = entry.storedSize();
    if (!r.ctx.settings.mayAnticipate(bytes)) {
      return Optional.empty();
    }
    if (ReadTier.cacheable(entry) && r.ctx.readTier.holds(unit(r))) {
      return Optional.empty();
    }
    return Optional.of(Anticipation.ofWhole(r, bytes, fetchStored(r)));
  }

  @Override
  public CompletableFuture<byte[]> range(ValueRead r, long offset, int length) {
    return PartedRead.cut(r.info, offset, length, read(r));
  }

  @Override
  public InputStream stream(ValueRead r) {
    return PartedRead.streamOfWhole(r, () -> read(r));
  }

  @Override
  public List<Check> checksOn(String holder) {
    return List.of(new Check(entry.dataObject(), Optional.empty(), 0, ""));
  }

  /**
   * What the reader is told about the stored value: {@code r}'s version, with the stored size
   * (sealed bytes are longer than the value) and the signed hash, which is of the stored bytes.
   */
  final VersionInfo stored(ValueRead r) {
    return storedInfo(r, entry);
  }

  /** {@link #stored(ValueRead)} for any entry of a value stored whole. */
  static VersionInfo storedInfo(ValueRead r, LogEntry entry) {
    VersionInfo info = r.info;
    long size = entry.storedSize();
    return size == info.size()
        ? info
        : new VersionInfo(
            info.key(), info.version(), size, info.sha256(), info.dataClouds(), info.createdAt());
  }

  /**
   * The value from the stored value {@code data}: as it is, or opened with the key the read's
   * {@link ValueRead.Opening} brings. Both run side by side; a failed key recovery cancels the data
   * fetch, and the caller sees the recovery's failure, not the cancellation it caused.
   */
  static CompletableFuture<StoredValue> opened(ValueRead r, CompletableFuture<StoredValue> data) {
    if (r.opening == null) {
      return data;
    }
    return Combine.both(
        data,
        r.opening,
        (sv, o) -> {
          try {
            return new StoredValue(r.info, o.whole(sv.value()), sv.servedBy());
          } catch (IntegrityException e) {
            throw new CompletionException(e);
          }
        },
        r.ctx.settings.executor());
  }
}
