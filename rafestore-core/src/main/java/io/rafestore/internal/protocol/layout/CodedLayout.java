package io.rafestore.internal.protocol.layout;

import io.rafestore.Version;
import io.rafestore.internal.codec.MalformedInputException;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
   * Valid fragments minus k: how many more fragments may be lost before fewer than k remain. With
   * fewer than k valid, the value is lost and the fragments missing everywhere are named.
   */
  @Override
  public Survival survival(Health health) {
    int k = entry.k();
    List<String> missing = new ArrayList<>();
    int valid = 0;
    for (int i = 0; i < entry.holders().size(); i++) {
      if (health.validOn(entry.holders().get(i), 0)) {
        valid++;
      } else {
        missing.add("fragment " + i + " (" + entry.holders().get(i) + ")");
      }
    }
    return new Survival(
        valid - k,
        "fragments: " + valid + " valid, " + k + " needed",
        valid < k ? missing : List.of());
  }

  /**
   * Every damaged holder's piece rebuilt from k hash-valid pieces gathered once (the holders verify
   * found right first, fastest first, then those it knows nothing about; never a damaged one), each
   * rebuilt piece checked against its signed hash before it is put. One pass: no valid piece is
   * written to, so the k sources stay valid whatever order the holders are repaired in.
   */
  @Override
  public List<Restore> heal(Context ctx, Bound bound, Version version, Health health) {
    Health.Split split = health.split(entry.holders(), 0);
    List<Restore> out = new ArrayList<>();
    if (split.damaged().isEmpty()) {
      return out;
    }
    List<String> sources = split.sources(ctx, entry.storedSize() / entry.k());
    CompletableFuture<Map<Integer, byte[]>> pieces = gather(ctx, bound, sources);
    for (String holder : split.damaged()) {
      int target = entry.holders().indexOf(holder);
      CompletableFuture<byte[]> piece =
          pieces.thenApplyAsync(
              v -> {
                try {
                  return rebuild(v, target);
                } catch (MalformedInputException e) {
                  throw new CompletionException(new IllegalStateException(e.getMessage(), e));
                }
              },
              ctx.settings.executor());
      out.add(
          new Restore(
              holder + ": data " + entry.dataObject() + " of version " + version,
              Repairs.put(ctx, bound, holder, entry.dataObject(), piece)));
    }
    return out;
  }

  /** The piece of {@code holder} rebuilt as {@link #heal} does, knowing nothing of the others. */
  @Override
  public Restore restore(Context ctx, Bound bound, Version version, String holder, String object) {
    if (!entry.holders().contains(holder)) {
      return new Restore(
          holder + ": data " + object + " of version " + version,
          CompletableFuture.failedFuture(
              new IllegalStateException("the cloud is not a holder of this version")));
    }
    return heal(
            ctx, bound, version, new Health(entry.holders(), Map.of(), Map.of(holder, Set.of(0))))
        .get(0);
  }

  /**
   * k hash-valid pieces (holder index to piece) from {@code sources}, in order: k asked at once,
   * and the next one for each that fails or does not match its signed hash. Fails naming the
   * missing fragments when fewer than k are valid.
   */
  private CompletableFuture<Map<Integer, byte[]>> gather(
      Context ctx, Bound bound, List<String> sources) {
    int k = entry.k();
    Map<Integer, byte[]> valid = new ConcurrentHashMap<>();
    CompletableFuture<Map<Integer, byte[]>> out = new CompletableFuture<>();
    int[] state = {0, 0}; // next source to ask, requests in flight
    Object lock = new Object();
    Runnable[] ask = new Runnable[1];
    ask[0] =
        () -> {
          List<String> now = new ArrayList<>();
          synchronized (lock) {
            while (!out.isDone() && valid.size() + state[1] < k && state[0] < sources.size()) {
              now.add(sources.get(state[0]++));
              state[1]++;
            }
            if (now.isEmpty() && state[1] == 0 && !out.isDone()) {
              if (valid.size() >= k) {
                out.complete(Map.copyOf(valid));
              } else {
                List<String> missing = new ArrayList<>();
                for (int i = 0; i < entry.holders().size(); i++) {
                  if (!valid.containsKey(i)) {
                    missing.add("fragment " + i + " (" + entry.holders().get(i) + ")");
                  }
                }
                out.completeExceptionally(
                    new IllegalStateException(
                        "only "
                            + valid.size()
                            + " valid fragments, "
                            + k
                            + " needed; missing everywhere: "
                            + String.join(", ", missing)));
              }
            }
          }
          for (String s : now) {
            Cloud c = ctx.byId.get(s);
            int index = entry.holders().indexOf(s);
            CompletableFuture<byte[]> get =
                c == null
                    ? CompletableFuture.failedFuture(new IllegalStateException("not configured"))
                    : bound.apply(
                        c.driver().get(ObjectKey.of(entry.dataObject()), Optional.empty()),
                        c.id() + " data");
            Futures.onEnd(
                get,
                (b, e) -> {
                  synchronized (lock) {
                    state[1]--;
                    if (e == null && Sha256.matches(b, entry.pieceHashUnsafe(index))) {
                      valid.put(index, b);
                    }
                  }
                  ask[0].run();
                });
          }
        };
    ask[0].run();
    return out;
  }
}
