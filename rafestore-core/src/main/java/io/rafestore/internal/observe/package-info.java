/**
 * Observation: the {@code Observer} that turns what the protocol does into listener calls, JFR
 * events and log records, and the {@code OpTrace} that times one operation's phases. Described in
 * design.md, "Observability".
 *
 * <p>Depends only on the public API ({@code io.rafestore}) and {@code jdk.jfr}: the protocol calls
 * into it (one call per hook), never the other way. Internal; not exported.
 */
package io.rafestore.internal.observe;
