/**
 * The read: readM, pick the version asked for, then let that version's value layout fetch and check
 * its bytes, whole, as a range or as a stream ({@code ReadOp}); the data fetch is anticipated on
 * the first valid reply of readM that names a version and kept only for the entry readM decides
 * ({@code Speculation}); a fetch that fails is checked once more against a newer collection
 * watermark. What a value's layout is (replicas, coded pieces, parts, sealed or not) is decided in
 * {@code layout}, never here. Described in design.md section 5 (Read).
 *
 * <p>Depends only on the packages below it (up to {@code write}). Internal; not exported.
 */
package io.rafestore.internal.protocol.read;
