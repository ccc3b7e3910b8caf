/**
 * Selection: the per-cloud latency and bandwidth model ({@code LatencyModel}) fed by every request
 * ({@code MeasuredCloud}, which also counts each cloud's requests and bytes in flight), which
 * orders data clouds fastest first and times hedges; the routing of reads by kind, with stealing
 * ({@code ReadRouting}, from the model's queue-aware prediction); and the layout chooser ({@code
 * LayoutChooser}, with the clouds' prices behind {@code PriceBook}), which picks each new value's
 * layout from those predictions; and the clouds writeM sends a signed log to first under the cost
 * objective ({@code LogTargets}). Described in design.md section 5, "Selection", "The layout
 * chooser", "writeM under the cost objective" and "Read".
 *
 * <p>Depends only on {@code protocol.config}. Internal; not exported.
 */
package io.rafestore.internal.protocol.selection;
