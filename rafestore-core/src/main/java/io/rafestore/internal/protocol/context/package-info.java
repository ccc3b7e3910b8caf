/**
 * What every operation runs with: the {@code Context} (settings, clouds, latency model, codec,
 * caches, the per-key queue, this client's incarnation and memory of key shares), one configured
 * {@code Cloud} with its decorators, and the stack-safe asynchronous {@code Loop}. Described in
 * design.md sections 5 and 6.
 *
 * <p>Depends only on {@code metadata}, {@code config} and {@code selection}. Internal; not
 * exported.
 */
package io.rafestore.internal.protocol.context;
