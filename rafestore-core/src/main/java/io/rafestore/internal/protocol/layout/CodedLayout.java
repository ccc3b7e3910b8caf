package io.rafestore.internal.protocol.layout;

import io.rafestore.Version;
import io.rafestore.internal.codec.MalformedInputException;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.spi.ObjectKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the coded layouts share: holder i stores piece i under the entry's data object, checked
 * against the piece hash the entry signs for holder i; k valid pieces rebuild the value, and any
 * lost piece ({@link CodedPieces}).
 */
abstract class CodedLayout extends WholeLayout {
  CodedLayout(LogEntry entry) {
    super(entry);
  }

  /** Piece {@code target} rebuilt from {@code valid} (holder index to a hash-valid piece). */
  abstract byte[] rebuild(Map<Integer, byte[]> valid, int target) throws MalformedInputException;

  @Override
  public boolean holds(String holder, Check check, byte[] bytes) {
    int i = entry.holders().indexOf(holder);
    return i >= 0 && Sha256.matches(bytes, entry.pieceHashUnsafe(i));
  }

  /**
   * The piece of {@code holder} rebuilt from the hash-valid pieces of the other holders (all asked
   * at once; k of them are needed), then put back.
   */
  @Override
  public Restore restore(Context ctx, Bound bound, Version version, String holder, String object) {
    return new Restore(
        holder + ": data " + object + " of version " + version,
        Repairs.put(
            ctx,
            bound,
            holder,
            object,
            rebuildPiece(ctx, bound, entry.holders().indexOf(holder), ObjectKey.of(object))));
  }

  private CompletableFuture<byte[]> rebuildPiece(
      Context ctx, Bound bound, int target, ObjectKey object) {
    if (target < 0) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("the cloud is not a holder of this version"));
    }
    Map<Integer, byte[]> valid = new ConcurrentHashMap<>();
    List<CompletableFuture<Void>> gets = new ArrayList<>();
    for (int j = 0; j < entry.holders().size(); j++) {
      Cloud c = ctx.byId.get(entry.holders().get(j));
      if (j == target || c == null) {
        continue;
      }
      int index = j;
      gets.add(
          bound
              .apply(c.driver().get(object, Optional.empty()), c.id() + " data")
              .handle(
                  (b, e) -> {
                    if (e == null && Sha256.matches(b, entry.pieceHashUnsafe(index))) {
                      valid.put(index, b);
                    }
                    return null;
                  }));
    }
    return CompletableFuture.allOf(gets.toArray(new CompletableFuture<?>[0]))
        .thenApplyAsync(
            x -> {
              try {
                return rebuild(valid, target);
              } catch (MalformedInputException e) {
                throw new CompletionException(new IllegalStateException(e.getMessage(), e));
              }
            },
            ctx.settings.executor());
  }
}
