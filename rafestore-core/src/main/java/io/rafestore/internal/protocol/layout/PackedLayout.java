package io.rafestore.internal.protocol.layout;

import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * An inline value after packing ({@link LogEntry.Coding#PACKED}): its stored bytes lie in a pack
 * object, the stored bytes of several of the writer's older inline values concatenated, which every
 * holder stores whole. A read fetches only the value's byte range from the holder predicted
 * fastest, hedged like any whole value ({@link DataFetch#packed}), and checks it against the
 * entry's signed hash; verify checks, and repair copies, the whole pack against the pack's signed
 * size and hash, like a replica. Several entries share one pack: garbage collection deletes it only
 * when none of them is live ({@link io.rafestore.internal.protocol.metadata.View#packsInUse}).
 */
final class PackedLayout extends WholeLayout {
  private final LogEntry.Pack pack;

  PackedLayout(LogEntry entry) {
    super(entry);
    this.pack = entry.pack();
  }

  @Override
  public List<String> objectsOn(String holder) {
    return List.of(pack.object());
  }

  @Override
  public List<String> allObjects() {
    return List.of(pack.object());
  }

  @Override
  public List<String> objectsToDelete(String cloud, boolean nativeMultipart) {
    return List.of(pack.object());
  }

  @Override
  CompletableFuture<StoredValue> fetchStored(ValueRead r) {
    return DataFetch.packed(r.ctx, r.key, stored(r), pack.object(), pack.offset());
  }

  @Override
  public List<Check> checksOn(String holder) {
    return List.of(new Check(pack.object(), Optional.empty(), 0, " (pack)"));
  }

  @Override
  public boolean holds(String holder, Check check, byte[] bytes) {
    return bytes.length == pack.size() && Sha256.matches(bytes, pack.sha256Unsafe());
  }

  /** The whole pack, copied from a holder whose bytes match the pack's signed hash. */
  @Override
  public Restore restore(Context ctx, Bound bound, Version version, String holder, String object) {
    return restoreCopy(ctx, bound, version, holder, "pack", object, pack.size());
  }

  /** One copy of the pack from a holder found right, put to every damaged holder. */
  @Override
  public List<Restore> heal(Context ctx, Bound bound, Version version, Health health) {
    return healCopies(ctx, bound, version, health, "pack", pack.object(), pack.size());
  }
}
