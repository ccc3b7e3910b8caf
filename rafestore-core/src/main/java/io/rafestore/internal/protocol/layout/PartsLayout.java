package io.rafestore.internal.protocol.layout;

import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.spi.ByteRange;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A large value in parts ({@link PartedPayload} writes it): every holder stores every stored part,
 * as its own object ({@link LogEntry#partObject}) or, for a joined holder, all of them as one
 * object under the data object's name, part i at {@link LogEntry#storedPartOffset}. Each part's
 * hash is signed, so a part, and any range of the value, is read and checked on its own ({@link
 * PartedRead}); verify checks a joined object one part at a time, as readers fetch it.
 */
final class PartsLayout implements ValueLayout {
  private final LogEntry entry;

  PartsLayout(LogEntry entry) {
    this.entry = entry;
  }

  @Override
  public List<String> objectsOn(String holder) {
    return entry.dataObjectsOn(holder);
  }

  @Override
  public List<String> allObjects() {
    return entry.allDataObjects();
  }

  @Override
  public List<String> objectsToDelete(String cloud, boolean nativeMultipart) {
    return entry.joinedOn(cloud) || nativeMultipart ? entry.allDataObjects() : entry.dataObjects();
  }

  @Override
  public CompletableFuture<StoredValue> read(ValueRead r) {
    return PartedRead.whole(r, PartedRead.WHOLE_PARTS);
  }

  @Override
  public CompletableFuture<byte[]> range(ValueRead r, long offset, int length) {
    return PartedRead.range(r, offset, length, PartedRead.WHOLE_PARTS);
  }

  @Override
  public InputStream stream(ValueRead r) {
    return PartedRead.stream(r, PartedRead.WHOLE_PARTS);
  }

  /** The stored part that holds byte {@code offset}, fetched before readM. */
  @Override
  public Optional<Anticipation> anticipate(ValueRead r, long offset) {
    java.util.OptionalInt which = PartedRead.partToAnticipate(r, entry, offset);
    if (which.isEmpty()) {
      return Optional.empty();
    }
    int part = which.getAsInt();
    long bytes = entry.storedPartSize(part);
    // The holder the read's own placement would ask first with nothing in flight (null with one
    // holder: DataFetch's fastest), named so that the read's other parts can be placed knowing it
    // is busy (Spread).
    String first = new Spread(r.ctx, entry).pick();
    return Optional.of(
        Anticipation.ofPart(
            r, part, bytes, first, DataFetch.part(r.ctx, r.key, r.info, entry, part, first)));
  }

  @Override
  public CompletableFuture<byte[]> fetchUnit(ValueRead r, int part, Spread spread) {
    return io.rafestore.spi.support.Futures.relay(
        PartedRead.fetchPart(r, part, spread), DataFetch.Fetched::bytes);
  }

  @Override
  public List<Check> checksOn(String holder) {
    List<Check> out = new ArrayList<>();
    for (int p = 0; p < entry.partCount(); p++) {
      out.add(check(holder, p));
    }
    return out;
  }

  /**
   * How {@code holder} keeps part {@code p}: a ranged get of its joined object (so neither a read
   * nor a verify holds more than a part of a large value at once), or its part object.
   */
  Check check(String holder, int p) {
    if (entry.joinedOn(holder)) {
      return new Check(
          entry.dataObject(),
          Optional.of(ByteRange.of(entry.storedPartOffset(p), entry.storedPartSize(p))),
          p,
          " part " + p);
    }
    return new Check(LogEntry.partObject(entry.dataObject(), p), Optional.empty(), p, "");
  }

  @Override
  public boolean holds(String holder, Check check, byte[] bytes) {
    return bytes.length == entry.storedPartSize(check.part())
        && Sha256.matches(bytes, entry.pieceHashUnsafe(check.part()));
  }

  @Override
  public List<Restore> heal(Context ctx, Bound bound, Version version, Health health) {
    return new PartHealing(ctx, bound, this, entry, version, health).start();
  }

  /**
   * Puts back {@code object} on {@code holder} as {@link #heal} does, knowing nothing of the other
   * holders: a part object, or the joined object rewritten whole from parts gathered anywhere.
   */
  @Override
  public Restore restore(Context ctx, Bound bound, Version version, String holder, String object) {
    java.util.Set<Integer> damaged = new java.util.TreeSet<>();
    for (Check c : checksOn(holder)) {
      if (c.object().equals(object)) {
        damaged.add(c.part());
      }
    }
    List<Restore> one =
        heal(ctx, bound, version, new Health(entry.holders(), Map.of(), Map.of(holder, damaged)));
    return one.isEmpty()
        ? new Restore(
            holder + ": " + object + " of version " + version,
            CompletableFuture.failedFuture(
                new IllegalStateException(object + " is not stored on " + holder)))
        : one.get(0);
  }
}
