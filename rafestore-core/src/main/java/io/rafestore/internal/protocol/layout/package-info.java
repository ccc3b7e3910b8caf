/**
 * How a value is laid out on its holders and fetched back: sealing and key shares ({@code
 * KeyShares}), values in parts ({@code PartedPayload} to write, {@code PartedRead} to read), coded
 * pieces ({@code CodedPieces}) and fetching a whole value from the fastest holder with hedges
 * ({@code DataFetch}). Described in design.md sections 3 and 5 (Read, parts, confidentiality,
 * erasure coding).
 *
 * <p>Depends only on the packages below it: {@code metadata}, {@code config}, {@code selection},
 * {@code context}. Internal; not exported.
 */
package io.rafestore.internal.protocol.layout;
