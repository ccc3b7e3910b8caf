/**
 * Maintenance: verification ({@code Verifier}), repair, collection of old versions, orphans and
 * purge ({@code Maintenance}), listings of keys and data objects ({@code Listings}) and the probe
 * of every cloud ({@code Probe}). Described in design.md section 12 (and section 5, Probe).
 *
 * <p>Depends only on the packages below it (up to {@code read}); only {@code Client} uses it.
 * Internal; not exported.
 */
package io.rafestore.internal.protocol.maintenance;
