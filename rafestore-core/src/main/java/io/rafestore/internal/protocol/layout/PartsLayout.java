package io.rafestore.internal.protocol.layout;

import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.Multipart;
import io.rafestore.spi.ObjectKey;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
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
    if (offset < 0 || offset >= entry.size()) {
      return Optional.empty();
    }
    int part = (int) (offset / entry.partLength());
    long bytes = entry.storedPartSize(part);
    if (!r.ctx.settings.mayAnticipate(bytes)) {
      return Optional.empty();
    }
    // The holder the read's own placement would ask first with nothing in flight (null with one
    // holder: DataFetch's fastest), named so that the read's other parts can be placed knowing it
    // is busy (PartedRead.Spread).
    String first = new PartedRead.Spread(r.ctx, entry).pick();
    return Optional.of(
        Anticipation.ofPart(
            r, part, bytes, first, DataFetch.part(r.ctx, r.key, r.info, entry, part, first)));
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
  private Check check(String holder, int p) {
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
  public Restore restore(Context ctx, Bound bound, Version version, String holder, String object) {
    List<String> sources = new ArrayList<>(entry.holders());
    sources.remove(holder);
    if (entry.joinedOn(holder)) {
      return new Restore(
          holder + ": joined data " + object + " of version " + version,
          restoreJoined(ctx, bound, sources, holder));
    }
    int part = entry.dataObjects().indexOf(object);
    return new Restore(
        holder + ": data " + object + " of version " + version,
        Repairs.put(ctx, bound, holder, object, part(ctx, bound, sources, part)));
  }

  /** Part {@code part} from the first of {@code sources} whose bytes match its signed hash. */
  private CompletableFuture<byte[]> part(Context ctx, Bound bound, List<String> sources, int part) {
    return Repairs.firstValid(ctx, bound, this, sources, source -> check(source, part), 0);
  }

  /**
   * Rewrites the joined object on {@code target}: each part fetched from another holder (joined or
   * not) and checked against its signed hash, then put as one native multipart upload part by part
   * (so memory holds one part), or, where the target no longer offers one that fits, as one whole
   * put. The entry keeps recording the target as joined, which is what it holds again afterwards.
   */
  private CompletableFuture<Void> restoreJoined(
      Context ctx, Bound bound, List<String> sources, String target) {
    ObjectKey object = ObjectKey.of(entry.dataObject());
    CloudDriver driver = ctx.byId.get(target).driver();
    int count = entry.partCount();
    Optional<Multipart> mp = driver.multipart().filter(m -> m.fits(entry.storedPartSize(0), count));
    if (mp.isPresent()) {
      return bound
          .apply(mp.get().begin(object), target + " begin")
          .thenCompose(
              up -> {
                CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
                for (int p = 0; p < count; p++) {
                  int part = p;
                  chain =
                      chain
                          .thenCompose(x -> part(ctx, bound, sources, part))
                          .thenCompose(
                              b -> bound.apply(up.putPart(part, b), target + " part " + part));
                }
                return chain
                    .thenCompose(x -> bound.apply(up.complete(count), target + " complete"))
                    .whenComplete(
                        (r, e) -> {
                          if (e != null) {
                            up.abort();
                          }
                        });
              });
    }
    CompletableFuture<ByteArrayOutputStream> all =
        CompletableFuture.completedFuture(new ByteArrayOutputStream());
    for (int p = 0; p < count; p++) {
      int part = p;
      all =
          all.thenCompose(
              out ->
                  part(ctx, bound, sources, part)
                      .thenApply(
                          b -> {
                            out.writeBytes(b);
                            return out;
                          }));
    }
    return all.thenCompose(
        out -> bound.apply(driver.put(object, out.toByteArray()), target + " put"));
  }
}
