package io.rafestore.bench.paper;

import io.rafestore.ProtocolMode;
import java.util.List;
import java.util.Optional;

/**
 * A protocol as the benchmark runs it: a {@link ProtocolMode}, how data clouds are chosen and how
 * each value is laid out. {@link #PAPER} is the paper's own protocol on the paper's hand-made Table
 * 2 arrangement (data clouds in the order the table gives them, no inline values), so its Table 3
 * can be compared with the paper's. Each fixed layout of RafeStore's fast mode has a protocol of
 * its own ({@link #FAST} whole copies, {@link #FAST_INLINE} values inside the signed log up to the
 * inline threshold, {@link #FAST_CODED} fragments), so that "the best fixed layout" at a size is
 * the fastest of those three measured there, and {@link #FAST_AUTO} lets the client choose per
 * value among all of them. The DepSky baselines ignore data roles and never inline.
 */
enum Protocol {
  /** The paper's anticipated protocol, data clouds in Table 2's order, no inline values. */
  PAPER(ProtocolMode.PAPER, true, 0, false, false),
  /**
   * RafeStore's fast mode with whole copies on f+1 data clouds chosen by the client (fastest for
   * each size first), no inline values: the fixed layout "whole".
   */
  FAST(ProtocolMode.FAST, false, 0, false, false),
  /**
   * Fast mode with inline values at the builder's defaults (up to {@link #INLINE_THRESHOLD} inside
   * the writer's signed log, older ones packed in the background), whole copies above: the fixed
   * layout "inline". Above the threshold it is {@link #FAST} exactly, and is not run there ({@link
   * #sameAs}).
   */
  FAST_INLINE(ProtocolMode.FAST, false, 0, false, true),
  /**
   * Fast mode with erasure-coded data ({@code erasureCoding(2)}: 2 data + f parity fragments on k +
   * f = 3 data clouds chosen by the client), no inline values: the fixed layout "coded".
   */
  FAST_CODED(ProtocolMode.FAST, false, 2, false, false),
  /**
   * Fast mode with the layout chosen per value ({@code layout(Layout.AUTO)}, latency objective,
   * inline values allowed at the defaults): inline, whole copies or fragments with the k and the
   * clouds the client's measurements predict fastest (issue 16). Its client probes the clouds once,
   * untimed, before a cell's writes, as a long-running client would have measured them.
   */
  FAST_AUTO(ProtocolMode.FAST, false, 0, true, true),
  /**
   * {@link #FAST_AUTO} under the cost objective ({@code objective(Objective.cost())}, the client
   * given the run's price table): the cheapest layout per value, the signed log put on the n - f
   * cheapest clouds only (the others when one fails or is late) and packs on the cheapest f+1 data
   * clouds (design.md section 5, "writeM under the cost objective"). It trades latency for dollars,
   * so it is not among the latency targets' candidates ({@link #costObjective}).
   */
  FAST_AUTO_COST(ProtocolMode.FAST, false, 0, true, true),
  /** The DepSky-A baseline. */
  DEPSKY_A(ProtocolMode.DEPSKY_A, true, 0, false, false),
  /** The DepSky-CA baseline. */
  DEPSKY_CA(ProtocolMode.DEPSKY_CA, true, 0, false, false),
  /** The paper's protocol with the client's own choice of data clouds (not in the default set). */
  PAPER_SELECTED(ProtocolMode.PAPER, false, 0, false, false),
  /** Fast mode, whole copies, on Table 2's order of data clouds (not in the default set). */
  FAST_TABLE_ORDER(ProtocolMode.FAST, true, 0, false, false);

  /**
   * The builder's default inline threshold ({@code RafeStore.Builder#inlineThreshold}, 64 KiB): the
   * protocols with inline values keep the builder's default, and this copy only tells the harness
   * which sizes can go inline (PaperBenchTest checks that it matches the builder).
   */
  static final long INLINE_THRESHOLD = 64 * 1024;

  /**
   * What a run measures unless told otherwise, in Configurations 1 and 2 (issue 16's targets): the
   * paper's protocol, every fixed layout of the fast mode, the chosen layout and the baselines.
   */
  static final List<Protocol> DEFAULT =
      List.of(PAPER, FAST, FAST_INLINE, FAST_CODED, FAST_AUTO, FAST_AUTO_COST, DEPSKY_A, DEPSKY_CA);

  /**
   * What a run measures in the other configurations unless told otherwise: the paper's four (Figure
   * 3 and Table 3; issue 21's read lines need the best RafeStore read there).
   */
  static final List<Protocol> PAPER_FOUR = List.of(PAPER, FAST, DEPSKY_A, DEPSKY_CA);

  /** The fixed layouts of the fast mode: "the best fixed layout" is the fastest of these. */
  static final List<Protocol> FIXED_LAYOUTS = List.of(FAST, FAST_INLINE, FAST_CODED);

  private final ProtocolMode mode;
  private final boolean tableOrder;
  private final int erasureK;
  private final boolean choosesLayout;
  private final boolean inline;

  Protocol(
      ProtocolMode mode, boolean tableOrder, int erasureK, boolean choosesLayout, boolean inline) {
    this.mode = mode;
    this.tableOrder = tableOrder;
    this.erasureK = erasureK;
    this.choosesLayout = choosesLayout;
    this.inline = inline;
  }

  /** The default protocols of configuration {@code config}. */
  static List<Protocol> defaultsFor(int config) {
    return config == 1 || config == 2 ? DEFAULT : PAPER_FOUR;
  }

  /** k of the erasure-coded data option, 0 for full copies. */
  int erasureK() {
    return erasureK;
  }

  ProtocolMode mode() {
    return mode;
  }

  /** Whether data clouds are used in Table 2's order ({@code dataCloudsInOrderAdded(true)}). */
  boolean tableOrder() {
    return tableOrder;
  }

  /** Whether this is one of RafeStore's own modes (not a DepSky baseline). */
  boolean rafeStore() {
    return mode == ProtocolMode.PAPER || mode == ProtocolMode.FAST;
  }

  /**
   * Whether the client chooses each value's layout from its measurements (issue 16); the other
   * RafeStore modes store every value one fixed way.
   */
  boolean choosesLayout() {
    return choosesLayout;
  }

  /**
   * Whether values up to {@link #INLINE_THRESHOLD} may travel inside the signed log (the builder's
   * defaults); otherwise the harness sets {@code inlineThreshold(0)}.
   */
  boolean inline() {
    return inline;
  }

  /** Whether a value of {@code size} bytes may be written inline by this protocol. */
  boolean mayInline(long size) {
    return inline && size <= INLINE_THRESHOLD;
  }

  /**
   * Whether this is one of RafeStore's own modes under the latency objective: the candidates of
   * every latency target and of the cost lines judged before the cost objective existed (whose
   * figures stay comparable); {@link #FAST_AUTO_COST} has lines of its own.
   */
  boolean rafeStoreLatency() {
    return rafeStore() && !costObjective();
  }

  /**
   * Whether the client runs under the cost objective ({@link #FAST_AUTO_COST}); every other
   * protocol keeps the default latency objective.
   */
  boolean costObjective() {
    return this == FAST_AUTO_COST;
  }

  /** The builder's objective for this protocol. */
  io.rafestore.Objective objective() {
    return costObjective() ? io.rafestore.Objective.cost() : io.rafestore.Objective.latency();
  }

  /** The builder's layout setting for this protocol. */
  io.rafestore.Layout layout() {
    return choosesLayout ? io.rafestore.Layout.AUTO : io.rafestore.Layout.FIXED;
  }

  /** Whether this is one of the {@link #FIXED_LAYOUTS}. */
  boolean fixedLayout() {
    return FIXED_LAYOUTS.contains(this);
  }

  /**
   * The protocol this one is identical to at {@code size}, if any: {@link #FAST_INLINE} above the
   * inline threshold stores whole copies exactly as {@link #FAST} does (nothing to inline, nothing
   * to pack), so measuring it again would only add a second noise sample of the same protocol to
   * "the best fixed layout".
   */
  Optional<Protocol> sameAs(long size) {
    return this == FAST_INLINE && size > INLINE_THRESHOLD ? Optional.of(FAST) : Optional.empty();
  }

  /**
   * The layout a fixed-layout protocol gives a value of {@code size} bytes, as the layout plot and
   * report name it ("INLINE", "WHOLE", "CODED k=2"); empty for the chooser and the baselines.
   */
  Optional<String> fixedKind(long size) {
    if (!fixedLayout()) {
      return Optional.empty();
    }
    if (mayInline(size)) {
      return Optional.of("INLINE");
    }
    return Optional.of(erasureK > 0 ? "CODED k=" + erasureK : "WHOLE");
  }
}
