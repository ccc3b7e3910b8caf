/**
 * Tenants and fair scheduling (design.md section 6, "Tenants and fair scheduling"): each cloud's
 * {@link io.rafestore.internal.protocol.fairness.FairQueue} (mClock-style reservation, weight and
 * limit tags in cost units, bounded requests and bytes in flight), the {@link
 * io.rafestore.internal.protocol.fairness.TenantDoor} through which a tenant's requests reach a
 * cloud, and the per-tenant figures ({@link io.rafestore.internal.protocol.fairness.TenantTable}).
 * Depends only on the public API, the SPI and {@code internal.cloud}.
 */
package io.rafestore.internal.protocol.fairness;
