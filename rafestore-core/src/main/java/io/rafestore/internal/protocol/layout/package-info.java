/**
 * How a value is laid out on its holders: one {@code ValueLayout} per way of storing a value
 * ({@code ReplicaLayout}, {@code ReedSolomonLayout}, {@code DepSkyLayout}, {@code PartsLayout}),
 * sealing around any of them ({@code SealedLayout}, with the key shares of {@code KeyShares}), and
 * {@code Layouts.of}, the one place that picks a signed entry's layout. Read, verify, repair,
 * deletion and collection all go through the layout; the fetches behind it are {@code DataFetch} (a
 * whole object from the fastest holder, with hedges), {@code CodedFetch} (k pieces) and {@code
 * PartedRead} (parts, ranges and streams, each part's first request placed on the holder predicted
 * to deliver it soonest), and {@code Anticipation}, the first of those fetches started before readM
 * decided; the writer's side is {@code PartedPayload} (parts), {@code KeyShares} (sealing) and
 * {@code CodedPieces} (DepSky-CA pieces). Described in design.md sections 3 and 5 (Read, parts,
 * confidentiality, erasure coding).
 *
 * <p>Depends only on the packages below it: {@code metadata}, {@code config}, {@code selection},
 * {@code context}. Internal; not exported.
 */
package io.rafestore.internal.protocol.layout;
