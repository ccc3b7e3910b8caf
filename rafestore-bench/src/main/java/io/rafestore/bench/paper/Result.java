package io.rafestore.bench.paper;

import java.util.List;

/**
 * The measurements of one cell: a configuration, a protocol mode, a value size and an operation
 * kind. Latencies are in paper milliseconds (measured time divided by the time scale; on virtual
 * time, {@code --virtual}, each operation's virtual latency plus the CPU time the bench thread
 * spent in it, see {@link VirtualTime}). Immutable.
 *
 * @param config the Table 2 configuration number
 * @param mode the protocol mode
 * @param sizeBytes the value size
 * @param op "write" or "read"
 * @param ops operations that succeeded (and were timed)
 * @param failures operations that failed (not timed)
 * @param medianMs median latency
 * @param p90Ms 90th percentile latency
 * @param p99Ms 99th percentile latency
 * @param floorMs the physical floor of this operation (see {@link Floors}): for a write the least
 *     time of any layout, for a read that of the layout the cell's writes produced
 * @param onlyFPlusOne writes that contacted only the data clouds their layout needs (f+1 for whole
 *     copies, the paper's Table 3 count; k+f for fragments; none for an inline value); -1 for reads
 * @param cancelled requests cancelled, over all clouds
 * @param perCloud requests and bytes per cloud, in arrangement order; bytes down are what each
 *     cloud sent (its egress), cancelled requests included
 * @param costPer10kUsd cost of 10,000 such operations (assumed prices), from every request the
 *     client started in the phase and what it left running (lingering puts, the packer's work)
 * @param speculative the reads' anticipated data fetches (issue 21), over all clouds; zero for
 *     writes and for modes that do not anticipate
 * @param chosenLayout for writes of a mode that chooses each value's layout, the layout chosen most
 *     often in the cell and how often ("CODED k=2 on p0+p1+p2 (14/15)"); empty otherwise
 * @param phasedFloorMs for writes, the floor with RafeStore's phases in sequence ({@link
 *     Floors#phasedWriteMs}); NaN for reads
 * @param floorLayout the layout the floor is of ("WHOLE on p0+p1")
 * @param seconds real seconds the phase took, waiting for the client to be idle included
 * @param virtual on virtual time, the virtual latencies and the CPU times the median, p90 and p99
 *     above are the per-operation sums of; {@link VirtualTime#NONE} on real time
 */
record Result(
    int config,
    Protocol mode,
    long sizeBytes,
    String op,
    int ops,
    int failures,
    double medianMs,
    double p90Ms,
    double p99Ms,
    double floorMs,
    int onlyFPlusOne,
    long cancelled,
    List<CloudUse> perCloud,
    double costPer10kUsd,
    Speculative speculative,
    String chosenLayout,
    double phasedFloorMs,
    String floorLayout,
    double seconds,
    VirtualTime virtual) {

  Result {
    perCloud = List.copyOf(perCloud);
  }

  /** A real-time cell ({@link VirtualTime#NONE}). */
  Result(
      int config,
      Protocol mode,
      long sizeBytes,
      String op,
      int ops,
      int failures,
      double medianMs,
      double p90Ms,
      double p99Ms,
      double floorMs,
      int onlyFPlusOne,
      long cancelled,
      List<CloudUse> perCloud,
      double costPer10kUsd,
      Speculative speculative,
      String chosenLayout,
      double phasedFloorMs,
      String floorLayout,
      double seconds) {
    this(
        config,
        mode,
        sizeBytes,
        op,
        ops,
        failures,
        medianMs,
        p90Ms,
        p99Ms,
        floorMs,
        onlyFPlusOne,
        cancelled,
        perCloud,
        costPer10kUsd,
        speculative,
        chosenLayout,
        phasedFloorMs,
        floorLayout,
        seconds,
        VirtualTime.NONE);
  }

  /**
   * A virtual-time cell's two parts ({@code --virtual}): the latency on virtual time at time scale
   * 1 (the WAN alone: deterministic), and the CPU time of the bench thread during the operation
   * (with a same-thread executor the client's work, the in-memory clouds' and the WAN emulator's;
   * this machine's, not deterministic). The cell's median, p90 and p99 are those of the
   * per-operation sums, a conservative estimate of the latency at time scale 1 on this machine. NaN
   * everywhere on real time.
   *
   * @param medianMs median virtual latency
   * @param p90Ms 90th percentile virtual latency
   * @param p99Ms 99th percentile virtual latency
   * @param cpuMedianMs median CPU time per operation
   * @param cpuP90Ms 90th percentile CPU time per operation
   */
  record VirtualTime(
      double medianMs, double p90Ms, double p99Ms, double cpuMedianMs, double cpuP90Ms) {
    static final VirtualTime NONE =
        new VirtualTime(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    boolean measured() {
      return !Double.isNaN(medianMs);
    }
  }

  /** The kind (and k) of {@link #chosenLayout}: "WHOLE", "CODED k=2", "INLINE"; "" if none. */
  String chosenKind() {
    int on = chosenLayout.indexOf(" on ");
    int paren = chosenLayout.indexOf(" (");
    return on >= 0
        ? chosenLayout.substring(0, on)
        : paren >= 0 ? chosenLayout.substring(0, paren) : chosenLayout;
  }

  /**
   * Anticipated data fetches during the cell: started, kept (readM decided the same entry) and
   * wasted (cancelled: cost a request and its egress).
   */
  record Speculative(long started, long kept, long wasted) {
    static final Speculative NONE = new Speculative(0, 0, 0);
  }

  /** One cloud's requests and bytes during the cell. */
  record CloudUse(String cloud, long requests, long bytesUp, long bytesDown) {}

  double medianOverFloor() {
    return medianMs / floorMs;
  }

  /** Percentile by nearest rank of a sorted array, {@code q} in (0, 1]. */
  static double percentile(double[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }
}
