/**
 * The quorum phases on metadata: readM ({@code MetadataRead}: n - f valid replies, merged), writeM
 * ({@code Commit}: sign and put the writer's log), and the quorum helpers they and maintenance
 * share ({@code QuorumPut}, {@code QuorumGather}). Described in design.md section 5.
 *
 * <p>Depends only on the packages below it (up to {@code layout}). Internal; not exported.
 */
package io.rafestore.internal.protocol.quorum;
