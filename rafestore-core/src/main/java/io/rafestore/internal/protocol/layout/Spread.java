package io.rafestore.internal.protocol.layout;

import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.selection.ReadRouting;
import io.rafestore.spi.support.Futures;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Which holders serve the parts of one read, or of one stream's read-ahead (the read tier's
 * prefetcher places its batches with one), so that a large value is read from several holders at
 * once when the latency model predicts that is faster than from the fastest alone. Whole parts
 * ({@link #pick}) ask one holder each; coded parts ({@link #plan}, {@link CodedFetch#part}) k
 * holders each, one fragment from each. {@link #finishOf} predicts when a batch placed by the rule
 * would be delivered (the prefetcher's trigger distance).
 *
 * <p><b>Rule.</b> A cloud's bandwidth is shared by the requests in flight on it (a real link's is,
 * and {@link io.rafestore.clouds.WanEmulator}'s), so a holder given {@code s} more bytes is
 * predicted to finish after its round trip plus the time its measured bandwidth needs for the bytes
 * this read already has on it (placed here and not yet answered), the bytes the model knows other
 * requests have on it ({@link io.rafestore.internal.protocol.selection.LatencyModel #bytesQueued},
 * less this read's own), and {@code s}: {@code predict(h, mine + others + s)}. A holder that served
 * a small read in the last 2 s counts {@link ReadRouting#BULK_TOLERANCE} times slower, as {@link
 * ReadRouting} keeps bulk reads off it. Each part goes to the holder, or a coded part's fragments
 * to the k distinct holders, predicted to finish soonest; ties to the fastest for one piece, then
 * the configured order.
 *
 * <p><b>Why.</b> For one part the k smallest predicted finishes are the best k holders for it (each
 * takes one fragment, so no other choice finishes that part sooner), and placing equal pieces one
 * after another where each would finish first is the greedy schedule that is optimal for equal
 * pieces on links of different speeds and start times; here it is taken part by part, so that a
 * part's k fragments are on k distinct holders. Without the read's own bytes every part would ask
 * the same k holders, and the k-th fastest for one piece would carry every part's fragment on its
 * link while a holder almost as fast for one piece stays idle (issue 21: 1.98 x the floor for a 16
 * MB coded read on Table 1's configuration 1). With one holder, or equal predictions and one part
 * at a time, every part goes to the fastest holder, as before. It only chooses whom to ask first: a
 * late or faulty holder is still hedged and replaced by {@link DataFetch} or {@link CodedFetch}
 * (whose hedges and fail-overs are placed too), and every byte is checked against its signed hash
 * as before. Thread-safe.
 */
public final class Spread {
  private final Context ctx;
  private final List<String> holders = new ArrayList<>();
  private final long bytes;

  /** Bytes this read has placed on each holder and not yet seen answered. */
  private final java.util.Map<String, Long> mine = new java.util.HashMap<>();

  public Spread(Context ctx, LogEntry entry) {
    this.ctx = ctx;
    for (String h : entry.holders()) {
      if (ctx.byId.containsKey(h)) {
        holders.add(h);
      }
    }
    this.bytes = entry.partCount() > 1 ? entry.storedPartSize(0) : entry.storedSize();
  }

  /**
   * When {@code h} is predicted to deliver {@code s} more bytes if asked now, in nanoseconds (the
   * rule above). Caller holds the lock.
   */
  private long finish(String h, long s) {
    long own = mine.getOrDefault(h, 0L);
    long others = Math.max(0, ctx.model.bytesQueued(h) - own);
    long t = ctx.model.predict(h, own + others + s).toNanos();
    if (ReadRouting.servedSmallReads(ctx.model, h)) {
      // Parts are bulk reads: they keep off the holder small reads use unless every other
      // holder is predicted more than BULK_TOLERANCE slower (issue 19).
      t = (long) (t * ReadRouting.BULK_TOLERANCE);
    }
    return t;
  }

  /**
   * The holders by predicted finish of {@code s} more bytes each, soonest first: the first k serve
   * a coded part's fragments, the others follow for hedges and failures. Nothing is placed until
   * {@link #place}.
   */
  public synchronized List<String> plan(long s) {
    List<String> out = new ArrayList<>(ctx.model.fastestFirst(holders, s));
    java.util.Map<String, Long> at = new java.util.HashMap<>();
    for (String h : out) {
      at.put(h, finish(h, s));
    }
    out.sort(java.util.Comparator.comparingLong(at::get)); // stable: ties stay fastest first
    return out;
  }

  /**
   * Places a request for {@code s} bytes on {@code h}, counted as this read's until {@link
   * #release}; returns when {@code h} is predicted to deliver them (for the hedge timer).
   */
  public synchronized java.time.Duration place(String h, long s) {
    long t = finish(h, s);
    mine.merge(h, s, Long::sum);
    return java.time.Duration.ofNanos(t);
  }

  /** A request {@link #place}d with {@code s} bytes on {@code h} has ended. */
  public synchronized void release(String h, long s) {
    mine.computeIfPresent(h, (x, b) -> b <= s ? null : b - s);
  }

  /** The holder to ask first for the next whole part (placed until {@link #done}). */
  public synchronized String pick() {
    if (holders.size() < 2) {
      return null;
    }
    String best = plan(bytes).get(0);
    place(best, bytes);
    return best;
  }

  /**
   * The holder to ask first for whole part {@code part} (placed until {@link #done}): the one
   * {@link #batch} planned for it, if any, else as {@link #pick()}.
   */
  public synchronized String pick(int part) {
    String h = planned.remove(part);
    if (h == null || holders.size() < 2) {
      return pick();
    }
    place(h, bytes);
    return h;
  }

  /** The holders {@link #batch} planned for parts not yet {@link #pick(int) picked}. */
  private final java.util.Map<Integer, String> planned = new java.util.HashMap<>();

  /**
   * Plans where whole parts {@code parts} (in the order a reader wants them), sent now together,
   * go, and keeps the plan for {@link #pick(int)}: as many on each holder as {@link #finishOf}
   * places there (each part where it would finish first), in runs: the first parts on the holder
   * predicted to deliver one more part first (its round trip and what it has queued, {@link
   * #plan}), the next ones on the next, and so on. Parts sent together to one holder share its link
   * and arrive together, at the end of its run, so a holder's share arrives when it would anyway;
   * placed one by one they alternated between the holders, and a part the reader wants early waited
   * for the slow holder's whole share (TraceBench: the fifth part of most streams read once, late).
   * Returns the holder of each part, in order; empty with fewer than two holders (nothing to plan).
   * A plan replaces the previous one.
   */
  public synchronized List<String> batch(List<Integer> parts) {
    planned.clear();
    if (holders.size() < 2 || parts.isEmpty()) {
      return List.of();
    }
    List<String> order = plan(bytes);
    java.util.Map<String, Long> extra = new java.util.HashMap<>();
    java.util.Map<String, Integer> count = new java.util.HashMap<>();
    for (int i = 0; i < parts.size(); i++) {
      String best = null;
      long bestAt = Long.MAX_VALUE;
      for (String h : order) {
        long t = finish(h, extra.getOrDefault(h, 0L) + bytes);
        if (t < bestAt) {
          best = h;
          bestAt = t;
        }
      }
      extra.merge(best, bytes, Long::sum);
      count.merge(best, 1, Integer::sum);
    }
    List<String> out = new ArrayList<>();
    for (String h : order) {
      for (int i = 0; i < count.getOrDefault(h, 0); i++) {
        planned.put(parts.get(out.size()), h);
        out.add(h);
      }
    }
    return out;
  }

  /**
   * When the last of {@code n} more parts would be delivered if they were placed now, one after
   * another on the holder predicted to deliver each first (the rule above), in nanoseconds from
   * now; nothing is placed. 0 if {@code n <= 0} or no holder is configured. With one holder it is
   * that holder's round trip plus the transfer of everything queued on it and the {@code n} parts;
   * with several, the parts go where they would arrive first, so holders add their bandwidth.
   */
  public synchronized long finishOf(int n) {
    java.util.Map<String, Long> extra = new java.util.HashMap<>();
    long last = 0;
    for (int i = 0; i < n && !holders.isEmpty(); i++) {
      String best = null;
      long bestAt = Long.MAX_VALUE;
      for (String h : ctx.model.fastestFirst(holders, bytes)) {
        long t = finish(h, extra.getOrDefault(h, 0L) + bytes);
        if (t < bestAt) {
          best = h;
          bestAt = t;
        }
      }
      extra.merge(best, bytes, Long::sum);
      last = Math.max(last, bestAt);
    }
    return last;
  }

  /** The holder the next part would be placed on now (not placed), or null with none configured. */
  public synchronized String next() {
    return holders.isEmpty() ? null : plan(bytes).get(0);
  }

  /** Counts {@code fetch}, placed elsewhere, as in flight on {@code holder} until it ends. */
  public void busy(String holder, CompletableFuture<?> fetch) {
    if (holder == null) {
      return;
    }
    place(holder, bytes);
    Futures.onEnd(fetch, (p, e) -> done(holder));
  }

  /** A whole-part fetch that asked {@code holder} first has ended. */
  public void done(String holder) {
    release(holder, bytes);
  }
}
