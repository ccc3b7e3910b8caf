/**
 * Reads that are more than one fetch: DepSky-CA's coded read ({@code CodedFetch}: f+1 pieces, the
 * key from their shares). The read of a RafeStore value (readM, pick the version, fetch from the
 * fastest holder) is still orchestrated by {@code Client} above this package. Described in
 * design.md section 5 (Read; Baselines).
 *
 * <p>Depends only on the packages below it (up to {@code write}). Internal; not exported.
 */
package io.rafestore.internal.protocol.read;
