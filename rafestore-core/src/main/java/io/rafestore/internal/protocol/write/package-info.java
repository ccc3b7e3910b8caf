/**
 * The writes: {@code WriteOp} (writeDo, the crucial check, writeDf, then writeM; modes PAPER and
 * FAST), inline writes ({@code InlineWriteOp}) and the group commit that shares one metadata round
 * among a key's concurrent inline writes ({@code GroupCommit}), the background packing of inline
 * values ({@code Packer}), the DepSky-A/CA baselines ({@code DepSkyWriteOp}) and deletion by
 * tombstone ({@code DeleteOp}). Described in design.md section 5.
 *
 * <p>Depends only on the packages below it (up to {@code quorum}). Internal; not exported.
 */
package io.rafestore.internal.protocol.write;
