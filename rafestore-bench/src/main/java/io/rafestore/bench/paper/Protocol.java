package io.rafestore.bench.paper;

import io.rafestore.ProtocolMode;

/**
 * A protocol as the benchmark runs it: a {@link ProtocolMode} and how data clouds are chosen.
 * {@link #PAPER} is the paper's own protocol on the paper's hand-made Table 2 arrangement (data
 * clouds in the order the table gives them), so its Table 3 can be compared with the paper's;
 * {@link #FAST} is RafeStore's best mode with the client's own, size-aware choice of data clouds.
 * The DepSky baselines ignore data roles, so the order does not matter to them.
 */
enum Protocol {
  /** The paper's anticipated protocol, data clouds in Table 2's order. */
  PAPER(ProtocolMode.PAPER, true),
  /** RafeStore's fast mode, data clouds chosen by the client (fastest for each size first). */
  FAST(ProtocolMode.FAST, false),
  /** The DepSky-A baseline. */
  DEPSKY_A(ProtocolMode.DEPSKY_A, true),
  /** The DepSky-CA baseline. */
  DEPSKY_CA(ProtocolMode.DEPSKY_CA, true),
  /** The paper's protocol with the client's own choice of data clouds (not in the default set). */
  PAPER_SELECTED(ProtocolMode.PAPER, false),
  /** Fast mode on Table 2's order of data clouds (not in the default set). */
  FAST_TABLE_ORDER(ProtocolMode.FAST, true),
  /**
   * Fast mode with erasure-coded data ({@code erasureCoding(2)}: 2 data + f parity fragments on k +
   * f = 3 data clouds) and the client's choice of clouds (not in the default set).
   */
  FAST_CODED(ProtocolMode.FAST, false, 2),
  /**
   * Fast mode with the layout chosen per value ({@code layout(Layout.AUTO)}, latency objective):
   * whole copies or fragments with the k and the clouds the client's measurements predict fastest
   * (issue 16; not in the default set). Its client probes the clouds once, untimed, before a cell's
   * writes, as a long-running client would have measured them.
   */
  FAST_AUTO(ProtocolMode.FAST, false, 0, true);

  /** What a run measures unless told otherwise: the paper's protocol, the best mode, baselines. */
  static final java.util.List<Protocol> DEFAULT =
      java.util.List.of(PAPER, FAST, DEPSKY_A, DEPSKY_CA);

  private final ProtocolMode mode;
  private final boolean tableOrder;
  private final int erasureK;
  private final boolean choosesLayout;

  Protocol(ProtocolMode mode, boolean tableOrder) {
    this(mode, tableOrder, 0);
  }

  Protocol(ProtocolMode mode, boolean tableOrder, int erasureK) {
    this(mode, tableOrder, erasureK, false);
  }

  Protocol(ProtocolMode mode, boolean tableOrder, int erasureK, boolean choosesLayout) {
    this.mode = mode;
    this.tableOrder = tableOrder;
    this.erasureK = erasureK;
    this.choosesLayout = choosesLayout;
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

  /** The builder's layout setting for this protocol. */
  io.rafestore.Layout layout() {
    return choosesLayout ? io.rafestore.Layout.AUTO : io.rafestore.Layout.FIXED;
  }
}
