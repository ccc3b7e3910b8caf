package io.rafestore.internal.protocol.layout;

import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.internal.codec.MalformedInputException;
import io.rafestore.internal.codec.ReedSolomon;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.spi.ObjectKey;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A large value in coded parts ({@link LogEntry.Coding#CODED_PARTS}; {@link PartedPayload} writes
 * it): each stored part Reed-Solomon coded on its own into k data and f parity fragments, holder i
 * storing fragment i of part j as the part object {@link LogEntry#partObject}{@code (dataObject,
 * j)}. A read fetches each part it needs from the k holders predicted to deliver its fragments
 * soonest, counting the fragments of its other parts already on their links ({@link
 * CodedFetch#part}, {@link Spread}), checks every fragment against its signed hash and the decoded
 * part against the part's signed hash before handing out a byte ({@link PartedRead}, so ranges
 * fetch only the parts that cover them and streams keep at most {@code partsInFlight} parts in
 * flight); verify checks each fragment on its own, and repair rebuilds one lost fragment of one
 * part from k valid fragments of the others.
 */
final class CodedPartsLayout implements ValueLayout {
  private final LogEntry entry;

  CodedPartsLayout(LogEntry entry) {
    this.entry = entry;
  }

  /**
   * Each part's fragments from the k holders predicted to deliver them soonest, the read's other
   * parts' fragments counted on their links ({@link Spread}), decoded and checked.
   */
  private static final PartedRead.PartFetch CODED_PARTS =
      (r, i, spread) -> {
        // The part's fragments fetched before readM decided, if they are this part's and unused;
        // their requests are counted on the holders' links by the latency model, so the spread
        // places the read's other parts around them.
        CompletableFuture<DataFetch.Fetched> anticipated =
            r.anticipated == null ? null : r.anticipated.takePart(i);
        return anticipated != null
            ? anticipated
            : CodedFetch.part(r.ctx, r.key, r.info, r.entry, i, spread);
      };

  /**
   * The k fragments of the stored part that holds byte {@code offset}, fetched and decoded before
   * readM decides (issue 21: a coded value anticipates all the fragments it needs), checked against
   * the same signed fragment and part hashes as after readM; nothing if the settings do not allow
   * anticipating that many bytes or the read tier's cache holds the part.
   */
  @Override
  public Optional<Anticipation> anticipate(ValueRead r, long offset) {
    java.util.OptionalInt part = PartedRead.partToAnticipate(r, entry, offset);
    if (part.isEmpty()) {
      return Optional.empty();
    }
    int j = part.getAsInt();
    return Optional.of(
        Anticipation.ofPart(
            r,
            j,
            entry.storedPartSize(j),
            null,
            CodedFetch.part(r.ctx, r.key, r.info, entry, j, null)));
  }

  @Override
  public List<String> objectsOn(String holder) {
    return entry.dataObjects();
  }

  @Override
  public List<String> allObjects() {
    return entry.allDataObjects();
  }

  @Override
  public List<String> objectsToDelete(String cloud, boolean nativeMultipart) {
    return entry.dataObjects();
  }

  @Override
  public CompletableFuture<byte[]> fetchUnit(ValueRead r, int part, Spread spread) {
    return io.rafestore.spi.support.Futures.relay(
        CodedFetch.part(r.ctx, r.key, r.info, r.entry, part, spread), DataFetch.Fetched::bytes);
  }

  @Override
  public CompletableFuture<StoredValue> read(ValueRead r) {
    return PartedRead.whole(r, CODED_PARTS);
  }

  @Override
  public CompletableFuture<byte[]> range(ValueRead r, long offset, int length) {
    return PartedRead.range(r, offset, length, CODED_PARTS);
  }

  @Override
  public InputStream stream(ValueRead r) {
    return PartedRead.stream(r, CODED_PARTS);
  }

  @Override
  public List<Check> checksOn(String holder) {
    List<Check> out = new ArrayList<>();
    for (int j = 0; j < entry.partCount(); j++) {
      out.add(new Check(LogEntry.partObject(entry.dataObject(), j), Optional.empty(), j, ""));
    }
    return out;
  }

  @Override
  public boolean holds(String holder, Check check, byte[] bytes) {
    int i = entry.holders().indexOf(holder);
    return i >= 0 && Sha256.matches(bytes, entry.fragmentHashUnsafe(check.part(), i));
  }

  /**
   * The fragment of one part that {@code holder} lost, rebuilt from the hash-valid fragments of the
   * same part on the other holders (all asked at once; k are needed): decoded, checked against the
   * part's signed hash, re-encoded, and the holder's fragment checked against its own signed hash
   * before the put.
   */
  @Override
  public Restore restore(Context ctx, Bound bound, Version version, String holder, String object) {
    int target = entry.holders().indexOf(holder);
    int part = entry.dataObjects().indexOf(object);
    return new Restore(
        holder
            + ": fragment "
            + target
            + " of part "
            + part
            + " ("
            + object
            + ") of version "
            + version,
        Repairs.put(ctx, bound, holder, object, rebuild(ctx, bound, target, part)));
  }

  private CompletableFuture<byte[]> rebuild(Context ctx, Bound bound, int target, int part) {
    if (target < 0 || part < 0) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("not a fragment this cloud holds of this version"));
    }
    ObjectKey object = ObjectKey.of(LogEntry.partObject(entry.dataObject(), part));
    Map<Integer, byte[]> valid = new ConcurrentHashMap<>();
    List<CompletableFuture<Void>> gets = new ArrayList<>();
    for (int i = 0; i < entry.holders().size(); i++) {
      Cloud c = ctx.byId.get(entry.holders().get(i));
      if (i == target || c == null) {
        continue;
      }
      int index = i;
      gets.add(
          bound
              .apply(c.driver().get(object, Optional.empty()), c.id() + " data")
              .handle(
                  (b, e) -> {
                    if (e == null && Sha256.matches(b, entry.fragmentHashUnsafe(part, index))) {
                      valid.put(index, b);
                    }
                    return null;
                  }));
    }
    return CompletableFuture.allOf(gets.toArray(new CompletableFuture<?>[0]))
        .thenApplyAsync(
            x -> {
              try {
                return fragment(valid, part, target);
              } catch (MalformedInputException e) {
                throw new CompletionException(new IllegalStateException(e.getMessage(), e));
              }
            },
            ctx.settings.executor());
  }

  /** Fragment {@code target} of part {@code part} from {@code valid} hash-checked fragments. */
  byte[] fragment(Map<Integer, byte[]> valid, int part, int target) throws MalformedInputException {
    int n = entry.holders().size();
    int k = entry.k();
    if (valid.size() < k) {
      throw new MalformedInputException(
          "only " + valid.size() + " valid fragments of part " + part + ", " + k + " needed");
    }
    byte[][] shards = new byte[n][];
    valid.forEach((i, b) -> shards[i] = b);
    byte[] fragment;
    try {
      ReedSolomon code = ReedSolomon.of(k, n - k);
      byte[] stored = code.decode(shards, Math.toIntExact(entry.storedPartSize(part)));
      if (!Sha256.matches(stored, entry.partHashUnsafe(part))) {
        throw new MalformedInputException("part " + part + " decodes to bytes of another hash");
      }
      fragment = code.encode(stored)[target];
    } catch (RuntimeException e) {
      throw new MalformedInputException("cannot rebuild part " + part + ": " + e.getMessage());
    }
    if (!Sha256.matches(fragment, entry.fragmentHashUnsafe(part, target))) {
      throw new MalformedInputException(
          "the rebuilt fragment " + target + " of part " + part + " does not match its hash");
    }
    return fragment;
  }
}
