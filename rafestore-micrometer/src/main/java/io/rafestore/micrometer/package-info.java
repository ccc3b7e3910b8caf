/**
 * Micrometer meters for RafeStore ({@link io.rafestore.micrometer.RafeStoreMetrics}). See
 * design.md, "Observability", for what each meter counts.
 */
package io.rafestore.micrometer;
