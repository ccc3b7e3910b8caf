/**
 * Selection: the per-cloud latency and bandwidth model ({@code LatencyModel}) fed by every request
 * ({@code MeasuredCloud}), which orders data clouds fastest first and times hedges. Described in
 * design.md section 5, "Selection".
 *
 * <p>Depends only on {@code protocol.config}. Internal; not exported.
 */
package io.rafestore.internal.protocol.selection;
