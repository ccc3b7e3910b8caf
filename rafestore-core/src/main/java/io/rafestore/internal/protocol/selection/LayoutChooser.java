package io.rafestore.internal.protocol.selection;

import io.rafestore.LayoutChoice;
import io.rafestore.LayoutChoice.Candidate;
import io.rafestore.LayoutChoice.Kind;
import io.rafestore.Objective;
import io.rafestore.ProtocolMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Chooses the layout of one new value ({@link io.rafestore.Layout#AUTO}): inline in the signed log
 * (when the client allows it), f+1 whole copies on which clouds, or k data and f parity fragments
 * with which k in [2, data clouds - f] on which k+f clouds. A pure function of its {@link Request}
 * (the value's size, the clouds and their roles, f, the mode, whether readM is skipped), the
 * latency model's predictions ({@link Timing}, which the context implements with its own {@code
 * predictUpload}) and the clouds' prices ({@link PriceBook}); it sends nothing.
 *
 * <p><b>Time of a candidate</b>, the protocol's phases as {@code WriteOp} runs them: the data
 * uploads to the candidate's clouds in parallel, each {@code Timing.upload} of its bytes in its
 * batches of parts, and all of them together through the client's own link ({@code
 * Timing.linkBytesPerSecond}): the uploads end at D (the slowest), the first at A. readM takes H,
 * one round trip to the (n-f)-th fastest cloud, and writeM W, the same for a log (with an inline
 * value's bytes in it). PAPER: readM starts on the first acknowledgement, or later so as to end
 * just after D ({@code WriteOp.readMDelay}), so writeM starts at max(A + H, D); FAST: readM starts
 * with writeDo, so at max(H, D), or at D when readM is skipped (a sole writer that knows its log);
 * inline: at H, or at once when readM is skipped. The write ends W after that.
 *
 * <p><b>Dollars of a candidate</b> (list prices unless the user gave others): the write's requests
 * (data puts: one per part per cloud; readM's n gets unless skipped; writeM's n puts), one read of
 * the value (readM's n gets; the data gets and egress from the holders a read asks: the fastest
 * holder for copies, the k fastest for fragments, every cloud's log for an inline value) and the
 * bytes stored for {@link #HORIZON_MONTHS} month on each cloud that stores them.
 *
 * <p><b>Which clouds.</b> For each kind and k the clouds predicted fastest for that candidate are
 * always considered; any other set of data clouds only if Condition 1 still holds for it at this
 * size (its slowest upload ends before its fastest upload plus readM), so that a cheaper placement
 * never makes the crucial check fail and add a writeDf copy. The objective then ranks every
 * candidate ({@link Objective#compare}); the runner-up is the best candidate of another kind or k.
 *
 * <p>Stateless and thread-safe. Cost: one {@code Timing.upload} per data cloud and candidate size
 * (not per set of clouds), then arithmetic; sets of clouds are enumerated among the {@link
 * #MAX_ENUMERATED} data clouds predicted fastest, and only when the objective is not latency.
 */
public final class LayoutChooser {
  private LayoutChooser() {}

  /** How long storage is charged in a candidate's dollars: one month. */
  public static final double HORIZON_MONTHS = 1.0;

  /** Bytes assumed for a signed log without inline values (writeM's put, readM's replies). */
  static final long LOG_BYTES = 512;

  /** Sets of clouds are enumerated among at most this many data clouds (2^8 sets at most). */
  static final int MAX_ENUMERATED = 8;

  private static final double GB = 1e9;

  /**
   * Under the latency objective, candidates predicted within 2 % (plus 1 ms) of the fastest count
   * as equally fast, and the cheapest of them is chosen.
   */
  static final double TIE = 0.02;

  static final double TIE_SECONDS = 0.001;

  /** What the chooser needs of the latency model (the context implements it). */
  public interface Timing {
    /**
     * Predicted time to upload {@code bytes} to {@code cloud} in {@code batches} batches of parts
     * one after another (1 for a single request).
     */
    Duration upload(String cloud, long bytes, long batches);

    /** Predicted time of one request moving {@code bytes} from {@code cloud}. */
    Duration fetch(String cloud, long bytes);

    /**
     * The client's own link in bytes per second, shared by its parallel transfers; a lower bound
     * such as the fastest bandwidth measured to any one cloud.
     */
    double linkBytesPerSecond();
  }

  /**
   * One write to choose for.
   *
   * @param size the stored bytes (the value, or the sealed value)
   * @param dataClouds the clouds that may hold data
   * @param clouds every cloud (each holds metadata)
   * @param f faults tolerated
   * @param mode PAPER or FAST
   * @param readMSkipped whether the write will skip readM (FAST, the only trusted writer, its log
   *     known)
   * @param inlineAllowed whether the value may travel inside the signed log
   * @param partSize values above it are sent in parts (coded values: each part coded on its own)
   * @param partsInFlight parts in flight per cloud
   * @param objective what to minimise
   * @param room what the writer's log of the key can take now ({@link LogRoom}): an inline value
   *     rides in a log with the inline bytes it still carries, and waits for packing when the
   *     budget cannot take it
   */
  public record Request(
      long size,
      List<String> dataClouds,
      List<String> clouds,
      int f,
      ProtocolMode mode,
      boolean readMSkipped,
      boolean inlineAllowed,
      long partSize,
      int partsInFlight,
      Objective objective,
      LogRoom room) {
    public Request {
      java.util.Objects.requireNonNull(room, "room");
      dataClouds = List.copyOf(dataClouds);
      clouds = List.copyOf(clouds);
      if (dataClouds.size() < f + 1) {
        throw new IllegalArgumentException("fewer than f+1 data clouds");
      }
    }

    /** A request for a key whose log is not known ({@link LogRoom#UNKNOWN}). */
    public Request(
        long size,
        List<String> dataClouds,
        List<String> clouds,
        int f,
        ProtocolMode mode,
        boolean readMSkipped,
        boolean inlineAllowed,
        long partSize,
        int partsInFlight,
        Objective objective) {
      this(
          size,
          dataClouds,
          clouds,
          f,
          mode,
          readMSkipped,
          inlineAllowed,
          partSize,
          partsInFlight,
          objective,
          LogRoom.UNKNOWN);
    }

    /** Parts the value is sent in (1 when whole). */
    long partCount() {
      return size > partSize ? (size + partSize - 1) / partSize : 1;
    }

    /** Bytes of each part but the last. */
    long partLength() {
      long count = partCount();
      return (size + count - 1) / count;
    }
  }

  /**
   * What the writer's signed log of a key can take for an inline value, as the packer ({@code
   * Packer#logRoom}) predicts it.
   *
   * @param inlineBytes inline bytes the next write's log carries besides the new value (older
   *     values not yet replaced by an acknowledged pack)
   * @param packWait how long the write must wait for packing before its log can take the value
   *     (zero when the budget has room): the pending packs' predicted acknowledgements, or a new
   *     pack
   * @param budget the log's inline budget (0 when unknown)
   */
  public record LogRoom(long inlineBytes, Duration packWait, long budget) {
    /** Nothing known of the log (the write reads it first): no inline bytes, no wait. */
    public static final LogRoom UNKNOWN = new LogRoom(0, Duration.ZERO, 0);

    public LogRoom {
      java.util.Objects.requireNonNull(packWait, "packWait");
    }

    /** Whether an inline write has to wait for packing. */
    public boolean waits() {
      return !packWait.isZero() && !packWait.isNegative();
    }
  }

  /** Where the chooser learns what a key's log can take ({@code Packer} implements it). */
  public interface LogRooms {
    /** What this writer's log of {@code key} can take for a value of {@code storedSize} bytes. */
    LogRoom logRoom(String key, long storedSize);
  }

  /**
   * A candidate with what ranked it.
   *
   * @param candidate kind, k, clouds, predicted time and dollars
   * @param conditionOne whether Condition 1 holds for its clouds at this size
   * @param fastestSet whether its clouds are the predicted fastest for its kind and k
   * @param readTime the predicted time of one read of it (reported, not ranked)
   */
  public record Option(
      Candidate candidate, boolean conditionOne, boolean fastestSet, Duration readTime) {}

  /**
   * The decision: the chosen option, the runner-up, every option considered and the reason.
   *
   * @param chosen the option to write
   * @param runnerUp the best option of another kind or k
   * @param considered every option ranked, best first
   * @param reason one line
   * @param objective what was minimised
   */
  public record Decision(
      Option chosen,
      Optional<Option> runnerUp,
      List<Option> considered,
      String reason,
      Objective objective) {

    /** The public record of this decision, for the write's receipt. */
    public LayoutChoice toChoice() {
      return new LayoutChoice(
          chosen.candidate(), runnerUp.map(Option::candidate), objective, reason);
    }
  }

  /** Chooses the layout of {@code request}'s value. */
  public static Decision choose(Request request, Timing timing, PriceBook prices) {
    Model m = new Model(request, timing, prices);
    List<Option> options = new ArrayList<>();
    if (request.inlineAllowed()) {
      options.add(m.inline());
    }
    boolean enumerate = !request.objective().isLatency();
    options.addAll(m.placements(Kind.WHOLE, 0, enumerate));
    int dataClouds = request.dataClouds().size();
    for (int k = 2; k <= dataClouds - request.f(); k++) {
      options.addAll(m.placements(Kind.CODED, k, enumerate));
    }
    Objective objective = request.objective();
    // Predictions are estimates: under the latency objective, times within TIE of the fastest
    // count as equal, and the cheaper of them wins (a small value bound by readM costs the same
    // time whole or coded, but coded costs one more put).
    double fastest = Double.POSITIVE_INFINITY;
    for (Option o : options) {
      fastest = Math.min(fastest, seconds(o));
    }
    double tie = fastest * (1 + TIE) + TIE_SECONDS;
    java.util.function.ToDoubleFunction<Option> time =
        o -> objective.isLatency() ? Math.max(seconds(o), tie) : seconds(o);
    Comparator<Option> ranking =
        (a, b) ->
            objective.compare(
                time.applyAsDouble(a),
                a.candidate().predictedUsd(),
                time.applyAsDouble(b),
                b.candidate().predictedUsd());
    options.sort(ranking);
    Option best = options.get(0);
    Optional<Option> runnerUp =
        options.stream()
            .filter(
                o ->
                    o.candidate().kind() != best.candidate().kind()
                        || o.candidate().k() != best.candidate().k())
            .findFirst();
    String reason = reason(objective, best, runnerUp);
    LogRoom room = request.room();
    if (request.inlineAllowed() && room.waits()) {
      reason +=
          String.format(
              Locale.ROOT,
              "; inline waits %d ms for packing (this value's %d bytes do not fit in the log's"
                  + " %d-byte inline budget until a pending pack is acknowledged; then the log"
                  + " carries %d inline bytes besides it)",
              room.packWait().toMillis(),
              request.size(),
              room.budget(),
              room.inlineBytes());
    }
    return new Decision(best, runnerUp, List.copyOf(options), reason, objective);
  }

  private static double seconds(Option o) {
    return o.candidate().predictedTime().toNanos() / 1e9;
  }

  private static String reason(Objective objective, Option best, Optional<Option> runnerUp) {
    StringBuilder sb = new StringBuilder();
    sb.append(objective).append(": ").append(best.candidate());
    if (!best.fastestSet()) {
      sb.append(" (not the fastest clouds; Condition 1 holds)");
    }
    runnerUp.ifPresent(r -> sb.append("; runner-up ").append(r.candidate()));
    return sb.toString();
  }

  /** One request's predictions, each asked of the timing once. */
  private static final class Model {
    final Request req;
    final Timing timing;
    final PriceBook prices;
    final long readM;
    final double linkBps;
    final Map<String, Long> roundTrip = new HashMap<>();

    Model(Request req, Timing timing, PriceBook prices) {
      this.req = req;
      this.timing = timing;
      this.prices = prices;
      this.linkBps = Math.max(1, timing.linkBytesPerSecond());
      for (String c : req.clouds()) {
        roundTrip.put(c, timing.fetch(c, 0).toNanos());
      }
      for (String c : req.dataClouds()) {
        roundTrip.computeIfAbsent(c, x -> timing.fetch(x, 0).toNanos());
      }
      this.readM = quorumth(req.clouds(), c -> roundTrip.get(c));
    }

    /** The (n-f)-th smallest of {@code f(c)} over {@code clouds}: when a quorum has answered. */
    long quorumth(List<String> clouds, java.util.function.ToLongFunction<String> f) {
      long[] t = new long[clouds.size()];
      for (int i = 0; i < t.length; i++) {
        t[i] = f.applyAsLong(clouds.get(i));
      }
      java.util.Arrays.sort(t);
      return t[Math.max(0, t.length - req.f() - 1)];
    }

    /** Nanoseconds to move {@code bytes} through the client's own link. */
    long throughLink(double bytes) {
      return (long) (bytes / linkBps * 1e9);
    }

    /** writeM: a log of {@code logBytes} to every cloud, done at the quorum. */
    long writeM(long logBytes) {
      long minRtt = Long.MAX_VALUE;
      for (String c : req.clouds()) {
        minRtt = Math.min(minRtt, roundTrip.get(c));
      }
      long quorum = quorumth(req.clouds(), c -> timing.upload(c, logBytes, 1).toNanos());
      long shared = minRtt + throughLink((double) logBytes * (req.clouds().size() - req.f()));
      return Math.max(quorum, shared);
    }

    Option inline() {
      long h = req.readMSkipped() && req.mode() == ProtocolMode.FAST ? 0 : readM;
      // The log carries the value and the older inline bytes not yet packed; if the budget cannot
      // take the value, writeM waits for packing too (which runs while readM does).
      long ready = Math.max(h, req.room().packWait().toNanos());
      long total = ready + writeM(LOG_BYTES + req.room().inlineBytes() + req.size());
      double usd = 0;
      for (String c : req.clouds()) {
        PriceBook.Price p = prices.of(c);
        // writeM's put, readM's get (unless skipped); one read: readM's get and every log reply
        // carrying the value; the value stored in every cloud's log.
        usd += p.putPer1000() / 1000;
        usd += h == 0 ? 0 : p.getPer1000() / 1000;
        usd += p.getPer1000() / 1000 + (req.size() + LOG_BYTES) / GB * p.egressPerGB();
        usd += req.size() / GB * p.storagePerGBMonth() * HORIZON_MONTHS;
      }
      Duration read = Duration.ofNanos(readM + throughLink(req.size()));
      return new Option(
          new Candidate(Kind.INLINE, 0, List.of(), Duration.ofNanos(total), usd), true, true, read);
    }

    /**
     * Options of one kind and k: the predicted fastest set of clouds, and, when {@code enumerate},
     * every other set for which Condition 1 holds.
     */
    List<Option> placements(Kind kind, int k, boolean enumerate) {
      int m = kind == Kind.WHOLE ? req.f() + 1 : k + req.f();
      long count = req.partCount();
      long bytes = kind == Kind.WHOLE ? req.size() : count * ceilDiv(req.partLength(), k);
      long batches = (count + req.partsInFlight() - 1) / req.partsInFlight();
      Map<String, Long> up = new HashMap<>();
      for (String c : req.dataClouds()) {
        up.put(c, timing.upload(c, bytes, batches).toNanos());
      }
      List<String> ordered = new ArrayList<>(req.dataClouds());
      ordered.sort(
          Comparator.comparingLong((String c) -> up.get(c))
              .thenComparingInt(c -> req.dataClouds().indexOf(c)));
      List<Option> out = new ArrayList<>();
      List<String> fastest = List.copyOf(ordered.subList(0, m));
      out.add(option(kind, k, fastest, bytes, count, up, true));
      if (!enumerate) {
        return out;
      }
      List<String> pool = ordered.subList(0, Math.min(ordered.size(), MAX_ENUMERATED));
      int size = pool.size();
      for (int mask = 0; mask < (1 << size); mask++) {
        if (Integer.bitCount(mask) != m) {
          continue;
        }
        List<String> set = new ArrayList<>();
        for (int i = 0; i < size; i++) {
          if ((mask & (1 << i)) != 0) {
            set.add(pool.get(i));
          }
        }
        if (set.equals(fastest)) {
          continue;
        }
        Option o = option(kind, k, set, bytes, count, up, false);
        if (o.conditionOne()) {
          out.add(o);
        }
      }
      return out;
    }

    private Option option(
        Kind kind,
        int k,
        List<String> set,
        long bytes,
        long count,
        Map<String, Long> up,
        boolean fastestSet) {
      long first = Long.MAX_VALUE;
      long slowest = 0;
      long minRtt = Long.MAX_VALUE;
      for (String c : set) {
        first = Math.min(first, up.get(c));
        slowest = Math.max(slowest, up.get(c));
        minRtt = Math.min(minRtt, roundTrip.get(c));
      }
      // Parallel uploads share the client's own link.
      slowest = Math.max(slowest, minRtt + throughLink((double) bytes * set.size()));
      boolean skipped = req.readMSkipped() && req.mode() == ProtocolMode.FAST;
      long metaReady =
          switch (req.mode()) {
            case PAPER -> Math.max(first + readM, slowest);
            default -> Math.max(skipped ? 0 : readM, slowest);
          };
      long total = metaReady + writeM(LOG_BYTES);
      boolean conditionOne = slowest <= first + readM;

      // One read: the holders a read asks (the fastest for copies, the k fastest for fragments).
      List<String> readers = new ArrayList<>(set);
      long each = kind == Kind.WHOLE ? req.size() : bytes;
      readers.sort(
          Comparator.comparingLong((String c) -> timing.fetch(c, each).toNanos())
              .thenComparingInt(set::indexOf));
      List<String> asked = readers.subList(0, kind == Kind.WHOLE ? 1 : k);
      long fetch = 0;
      long fetchRtt = Long.MAX_VALUE;
      for (String c : asked) {
        fetch = Math.max(fetch, timing.fetch(c, each).toNanos());
        fetchRtt = Math.min(fetchRtt, roundTrip.get(c));
      }
      fetch = Math.max(fetch, fetchRtt + throughLink(req.size()));
      Duration read = Duration.ofNanos(Math.max(readM, fetch));

      double usd = 0;
      for (String c : req.clouds()) {
        PriceBook.Price p = prices.of(c);
        usd += p.putPer1000() / 1000; // writeM
        usd += skipped ? 0 : p.getPer1000() / 1000; // readM
        usd += p.getPer1000() / 1000 + LOG_BYTES / GB * p.egressPerGB(); // the read's readM
      }
      for (String c : set) {
        PriceBook.Price p = prices.of(c);
        usd += count * p.putPer1000() / 1000;
        usd += bytes / GB * p.storagePerGBMonth() * HORIZON_MONTHS;
      }
      for (String c : asked) {
        PriceBook.Price p = prices.of(c);
        usd += count * p.getPer1000() / 1000 + each / GB * p.egressPerGB();
      }
      return new Option(
          new Candidate(kind, k, set, Duration.ofNanos(total), usd),
          conditionOne,
          fastestSet,
          read);
    }
  }

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }

  /** For logs: the options one per line. */
  public static String describe(Decision d) {
    StringBuilder sb = new StringBuilder(d.reason());
    for (Option o : d.considered()) {
      sb.append(
          String.format(Locale.ROOT, "%n  %s, read %d ms", o.candidate(), o.readTime().toMillis()));
    }
    return sb.toString();
  }
}
