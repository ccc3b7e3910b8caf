package io.rafestore.bench.paper;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * Physical lower bounds of an operation's latency on a profile, in paper milliseconds (time scale
 * 1): what the network allows any protocol, with CPU time zero. Every request takes its cloud's
 * round trip r plus its payload's time through the slower of the cloud's link b and the client's
 * own link (uplink U, downlink D), and payloads that cross the client's link at the same time share
 * it. These are the emulator's own rules ({@link io.rafestore.clouds.WanEmulator}), so no run can
 * beat a floor except by jitter (5 %).
 *
 * <p><b>A write</b> is complete when (1) its value can be rebuilt from correct clouds whatever f of
 * them do, which takes the bytes on f+1 clouds (whole copies) or k+f clouds (k data and f parity
 * fragments of a k-th of the value each), and (2) a signed log naming it is on n - f clouds, so
 * that every later read quorum hears of it. Its floor is the least time over the layouts that
 * achieve that, with each layout's uploads and its log sent at once (a log's bytes are negligible):
 *
 * <ul>
 *   <li>inline: one round carrying the value inside the log to n - f clouds (any clouds, metadata
 *       only ones included);
 *   <li>whole copies on f+1 data clouds, and the log to n - f clouds, at the same time;
 *   <li>fragments on k+f data clouds (every k from 2 to data clouds - f), and the log, at once.
 * </ul>
 *
 * For a set X of clouds each receiving s bytes, the upload ends no earlier than {@code max over X
 * of (r + s / min(b, U))} and no earlier than {@code min over X of r + |X| s / U} (the copies share
 * the uplink). For the best set of each size; the log adds the round trip to the (n-f)-th fastest
 * cloud. So for a value whose bytes are negligible the floor is one round trip to the (n-f)-th
 * fastest cloud, whatever the layout. It does not follow RafeStore's phases: a protocol that sends
 * its log only after its data (writeDo, then writeM) cannot reach it for whole or coded values;
 * {@link #phasedWriteMs} is the same bound with the log after the data (RafeStore's fast mode with
 * readM skipped), which says how much of a gap is the protocol's structure rather than its code.
 *
 * <p><b>A read</b> must hear n - f clouds (one round trip to the (n-f)-th fastest cloud) and
 * receive the bytes the layout in use needs from its holders, in parallel; its floor is the larger
 * of the two (they need not run one after the other: anticipated reads overlap them). The layout in
 * use is the one the cell's last write produced ({@link ReadLayout}): an inline value is in every
 * cloud's log and comes from the nearest; a whole value from one holder (an unsplit object can only
 * be checked whole); a value in parts part by part from its holders at once; fragments, k distinct
 * ones per part, from the holders that deliver them first. The bytes also cross the client's
 * downlink. So the read floor is that of the layout the writes chose, not of the best layout
 * possible: a layout slow to read shows against DepSky-A's reads, not against its floor.
 *
 * <p>Stateless.
 */
final class Floors {
  private Floors() {}

  /** RafeStore.Builder's default part size: values above it are stored in parts. */
  static final long DEFAULT_PART_SIZE = 8L * 1024 * 1024;

  /** The RTT of the (n-f)-th fastest cloud of {@code arrangement}. */
  static double quorumRttMs(WanProfile profile, WanProfile.Arrangement arrangement, int f) {
    List<Double> rtts = new ArrayList<>();
    for (String id : arrangement.order()) {
      rtts.add(profile.clouds().get(id).rttMillis());
    }
    Collections.sort(rtts);
    return rtts.get(rtts.size() - f - 1);
  }

  /** The clouds that may hold data: Table 2's data clouds and writeDf's extras. */
  static List<String> dataClouds(WanProfile.Arrangement arrangement) {
    List<String> all = new ArrayList<>(arrangement.data());
    all.addAll(arrangement.extra());
    return all;
  }

  /**
   * One layout's write floor.
   *
   * @param layout "INLINE", "WHOLE" or "CODED k=K"
   * @param clouds the clouds of the best set for it
   * @param ms its floor with the log sent together with the data
   * @param phasedMs its floor with the log sent after the data (RafeStore's writeDo, then writeM);
   *     the same for inline, which is one round
   */
  record WriteFloor(String layout, List<String> clouds, double ms, double phasedMs) {
    WriteFloor {
      clouds = List.copyOf(clouds);
    }
  }

  /** Every layout's write floor for a value of {@code sizeBytes}, inline first, then whole. */
  static List<WriteFloor> writeLayouts(
      WanProfile profile, WanProfile.Arrangement arrangement, int f, long sizeBytes) {
    double quorum = quorumRttMs(profile, arrangement, f);
    int n = arrangement.order().size();
    List<WriteFloor> out = new ArrayList<>();
    Best inline = best(profile, arrangement.order(), n - f, sizeBytes);
    out.add(new WriteFloor("INLINE", inline.clouds, inline.ms, inline.ms));
    List<String> data = dataClouds(arrangement);
    Best whole = best(profile, data, f + 1, sizeBytes);
    if (whole != null) {
      out.add(new WriteFloor("WHOLE", whole.clouds, Math.max(whole.ms, quorum), whole.ms + quorum));
    }
    for (int k = 2; k + f <= data.size(); k++) {
      long fragment = (sizeBytes + k - 1) / k;
      Best coded = best(profile, data, k + f, fragment);
      out.add(
          new WriteFloor(
              "CODED k=" + k, coded.clouds, Math.max(coded.ms, quorum), coded.ms + quorum));
    }
    return out;
  }

  /** The write floor: the least of {@link #writeLayouts}. */
  static double writeMs(
      WanProfile profile, WanProfile.Arrangement arrangement, int f, long sizeBytes) {
    return writeLayouts(profile, arrangement, f, sizeBytes).stream()
        .mapToDouble(WriteFloor::ms)
        .min()
        .orElseThrow();
  }

  /**
   * The least time of any layout with RafeStore's phases in sequence and nothing else: inline one
   * round, or the data and then the log (the fast mode of a sole writer that skips readM). Above
   * {@link #writeMs}, by at most one round trip to the quorum.
   */
  static double phasedWriteMs(
      WanProfile profile, WanProfile.Arrangement arrangement, int f, long sizeBytes) {
    return writeLayouts(profile, arrangement, f, sizeBytes).stream()
        .mapToDouble(WriteFloor::phasedMs)
        .min()
        .orElseThrow();
  }

  /** A set of clouds and the time an upload of the same bytes to each of them takes at least. */
  private record Best(List<String> clouds, double ms) {}

  /** The set of {@code size} clouds among {@code candidates} whose upload of s bytes ends first. */
  private static Best best(WanProfile profile, List<String> candidates, int size, long bytes) {
    if (size > candidates.size()) {
      return null;
    }
    Best best = null;
    int m = candidates.size();
    for (int mask = 0; mask < 1 << m; mask++) {
      if (Integer.bitCount(mask) != size) {
        continue;
      }
      List<String> set = new ArrayList<>();
      for (int i = 0; i < m; i++) {
        if ((mask & 1 << i) != 0) {
          set.add(candidates.get(i));
        }
      }
      double ms = uploadMs(profile, set, bytes);
      if (best == null || ms < best.ms) {
        best = new Best(set, ms);
      }
    }
    return best;
  }

  /** The least time for {@code bytes} bytes to reach each of {@code clouds}, in parallel. */
  static double uploadMs(WanProfile profile, List<String> clouds, long bytes) {
    double each = 0;
    double nearest = Double.POSITIVE_INFINITY;
    for (String id : clouds) {
      WanProfile.CloudLink link = profile.clouds().get(id);
      each =
          Math.max(each, link.rttMillis() + ms(bytes, Math.min(link.bps(), profile.uplinkBps())));
      nearest = Math.min(nearest, link.rttMillis());
    }
    return Math.max(each, nearest + ms(bytes * clouds.size(), profile.uplinkBps()));
  }

  /** How the value a read fetches is laid out, and on which clouds. */
  enum ReadKind {
    /** Inside the writer's log, on every cloud. */
    INLINE,
    /** Whole copies, one object per holder. */
    WHOLE,
    /** Whole copies in parts of at most {@link #DEFAULT_PART_SIZE}. */
    PARTS,
    /** k fragments of a k-th, one distinct fragment per holder. */
    CODED,
    /** Fragments of each part of at most {@link #DEFAULT_PART_SIZE}. */
    CODED_PARTS
  }

  /**
   * The layout of the version a read fetches.
   *
   * @param kind how it is stored
   * @param k fragments needed (0 unless coded)
   * @param holders the clouds holding it (every cloud for an inline value)
   */
  record ReadLayout(ReadKind kind, int k, List<String> holders) {
    ReadLayout {
      holders = List.copyOf(holders);
    }

    @Override
    public String toString() {
      return kind + (k > 0 ? " k=" + k : "") + " on " + String.join("+", holders);
    }
  }

  /** The read floor of a value of {@code sizeBytes} laid out as {@code layout}. */
  static double readMs(
      WanProfile profile,
      WanProfile.Arrangement arrangement,
      int f,
      long sizeBytes,
      ReadLayout layout) {
    return Math.max(quorumRttMs(profile, arrangement, f), fetchMs(profile, sizeBytes, layout));
  }

  /** The least time to receive the bytes {@code layout} needs from its holders, in parallel. */
  static double fetchMs(WanProfile profile, long sizeBytes, ReadLayout layout) {
    List<Holder> hs = new ArrayList<>();
    for (String id : layout.holders()) {
      WanProfile.CloudLink link = profile.clouds().get(id);
      hs.add(new Holder(link.rttMillis(), Math.min(link.bps(), profile.downlinkBps())));
    }
    if (hs.isEmpty()) {
      return Double.POSITIVE_INFINITY;
    }
    double nearest = hs.stream().mapToDouble(Holder::rtt).min().orElseThrow();
    // Whatever the layout, every byte crosses the client's downlink.
    double downlink = nearest + ms(sizeBytes, profile.downlinkBps());
    boolean parted = layout.kind() == ReadKind.PARTS || layout.kind() == ReadKind.CODED_PARTS;
    long count = parted ? Math.max(1, (sizeBytes + DEFAULT_PART_SIZE - 1) / DEFAULT_PART_SIZE) : 1;
    long part = (sizeBytes + count - 1) / count;
    // Fragments of a part needed, each from a different holder: 1 for copies, k for fragments.
    int k =
        layout.kind() == ReadKind.CODED || layout.kind() == ReadKind.CODED_PARTS ? layout.k() : 1;
    if (hs.size() < k) {
      return Double.POSITIVE_INFINITY;
    }
    long piece = (part + k - 1) / k;
    // k x count equal pieces, at most one of each part per holder, so at most count per holder
    // (and any such counts can be arranged so each part's k pieces are on distinct holders). One
    // piece at a time to the holder that would finish it first: optimal for equal pieces on links
    // of different speeds and start times. A whole value is one piece: the nearest holder's round
    // trip and transfer.
    long[] assigned = new long[hs.size()];
    double fetch = 0;
    for (long p = 0; p < k * count; p++) {
      int best = -1;
      double bestEnd = Double.POSITIVE_INFINITY;
      for (int i = 0; i < hs.size(); i++) {
        double end = hs.get(i).rtt + ms((assigned[i] + 1) * piece, hs.get(i).bps);
        if (assigned[i] < count && end < bestEnd) {
          bestEnd = end;
          best = i;
        }
      }
      assigned[best]++;
      fetch = Math.max(fetch, bestEnd);
    }
    return Math.max(fetch, downlink);
  }

  private record Holder(double rtt, double bps) {}

  /** Milliseconds for {@code bytes} through {@code bps} bits per second. */
  private static double ms(long bytes, double bps) {
    return bytes * 8.0 / bps * 1000;
  }

  /** "1012 (INLINE on p0+p1+p2)": a floor and its layout, for tables. */
  static String describe(WriteFloor w) {
    return String.format(
        Locale.ROOT, "%.0f (%s on %s)", w.ms(), w.layout(), String.join("+", w.clouds()));
  }
}
