package io.rafestore.internal.protocol.maintenance;

import io.rafestore.CloudFault;
import io.rafestore.CollectionReport;
import io.rafestore.OrphanReport;
import io.rafestore.Phase;
import io.rafestore.ProtocolMode;
import io.rafestore.RetentionPolicy;
import io.rafestore.Version;
import io.rafestore.internal.observe.OpTrace;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.layout.KeyShares;
import io.rafestore.internal.protocol.layout.Layouts;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.Logs;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import io.rafestore.internal.protocol.metadata.View;
import io.rafestore.internal.protocol.quorum.MetadataRead;
import io.rafestore.internal.protocol.quorum.QuorumGather;
import io.rafestore.internal.protocol.quorum.QuorumPut;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Garbage collection: retention policies recorded as a signed watermark, compaction of this
 * writer's log, deletion of collected data, orphan collection and purge.
 *
 * <p><b>Order, and why it is safe for concurrent readers.</b> A collection first stores this
 * writer's log carrying the watermark ("every version up to V is collected") on n - f clouds, and
 * only then deletes data objects. A reader whose readM ran after that quorum sees the watermark
 * (any n - f replies intersect the quorum in a correct cloud). A reader that read metadata earlier
 * and then finds the data gone re-reads metadata, now sees the watermark, and reports {@link
 * io.rafestore.VersionCollectedException}; without a signed watermark, missing data stays an
 * integrity failure. Only a trusted writer can sign a watermark, so a cloud that drops log entries
 * cannot pass that off as a collection: the log it returns is either validly signed with the
 * entries or is rejected.
 */
public final class Maintenance {
  private Maintenance() {}

  /** Data objects first seen unreferenced, by cloud id + '\n' + name, with the time seen. */
  private static final int ORPHAN_MEMORY_LIMIT = 100_000;

  /** Collects {@code key} under {@code policy}; {@code trace} times its readM and writeM. */
  public static CompletableFuture<CollectionReport> collect(
      Context ctx, String key, RetentionPolicy policy, OpTrace trace) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    CompletableFuture<Void> turn = ctx.enterKey(key, done);
    CompletableFuture<CollectionReport> result =
        turn.thenCompose(x -> trace.timed(Phase.READ_M, MetadataRead.runForCollection(ctx, key)))
            .thenApply(v -> ctx.ownView(key, v))
            .thenComposeAsync(
                view -> collect(ctx, key, policy, view, trace), ctx.settings.executor());
    Futures.onEnd(result, (r, e) -> done.complete(null));
    return result;
  }

  private static CompletableFuture<CollectionReport> collect(
      Context ctx, String key, RetentionPolicy policy, View view, OpTrace trace) {
    String writer = ctx.settings.writerId();
    MetadataLog own = view.logOf(writer);
    List<View.Item> visible = view.visible;
    // The policy ranks only versions that a quorum of readM's replies held: a version on fewer
    // clouds (a crashed writer's partial write) may be invisible to the next reader, so keeping it
    // in place of an older version would leave that reader nothing (design.md section 5, "Garbage
    // collection"). Such a version is never collected here either unless a kept one is newer. The
    // newest held version is always kept; with none, nothing is collected.
    int lastKept = -1;
    int rank = 0;
    for (int i = 0; i < visible.size(); i++) {
      View.Item it = visible.get(i);
      if (view.underQuorum.contains(it.version())) {
        continue;
      }
      Instant created = Instant.ofEpochMilli(it.entry().createdAtMillis());
      if (rank == 0 || policy.keeps(rank, created)) {
        lastKept = i;
      }
      rank++;
    }
    List<View.Item> newly =
        lastKept < 0 ? List.of() : visible.subList(lastKept + 1, visible.size());
    Version through = newly.isEmpty() ? view.collected : newly.get(0).version();
    boolean ownCovered = false;
    for (LogEntry e : own.entries()) {
      if (e.kind() == LogEntry.Kind.VALUE
          && through != null
          && e.version(writer).compareTo(through) <= 0) {
        ownCovered = true;
      }
    }
    List<Version> collectedVersions = new ArrayList<>();
    for (View.Item it : newly) {
      collectedVersions.add(it.version());
    }
    if (through == null || (newly.isEmpty() && view.collectedItems.isEmpty() && !ownCovered)) {
      // Nothing to collect and nothing left over from earlier collections.
      return CompletableFuture.completedFuture(
          new CollectionReport(
              key,
              Optional.ofNullable(view.collected),
              List.of(),
              Map.of(),
              0,
              own.entries().size(),
              own.entries().size(),
              List.of()));
    }
    LogEntry watermark =
        LogEntry.collected(view.maxTimestamp + 1, ctx.settings.clock().millis(), through);
    MetadataLog next = Logs.append(own, view, watermark, ctx.incarnation());
    byte[] bytes = ctx.codec.encode(next, ctx.settings.writerKeys().getPrivate());
    ctx.rememberOwnLog(next);
    Set<String> doomed = new HashSet<>();
    for (View.Item it : newly) {
      doomed.addAll(Layouts.of(it.entry()).allObjects());
    }
    for (View.Item it : view.collectedItems) {
      doomed.addAll(Layouts.of(it.entry()).allObjects());
    }
    // A pack holds several versions: it goes only with the last live one that references it.
    doomed.removeAll(view.packsInUseAbove(through));
    Version finalThrough = through;
    // Under the confidentiality option each cloud's object also carries its key shares of the
    // sealed entries that remain; payloads() carries them over (or restores them) as writeM does.
    java.util.function.Function<Cloud, byte[]> payloads =
        KeyShares.payloads(ctx, view, next, bytes, null);
    return trace
        .timed(
            Phase.WRITE_M,
            QuorumPut.metadata(ctx, key, writer, payloads, "writeM (collection watermark)"))
        .thenCompose(
            acks -> {
              // Only now, with the watermark on a quorum, is deleting the data safe.
              return deleteListed(ctx, key, doomed::contains);
            })
        .thenApply(
            deleted ->
                new CollectionReport(
                    key,
                    Optional.of(finalThrough),
                    collectedVersions,
                    deleted.counts(),
                    deleted.bytes(),
                    own.entries().size(),
                    next.entries().size(),
                    deleted.faults()));
  }

  /** What a listing-and-delete pass removed. Thread-safe: deletes complete on driver threads. */
  static final class Deleted {
    private final Map<String, List<String>> names = new TreeMap<>();
    private long bytes;
    private final List<CloudFault> faults = new ArrayList<>();

    synchronized void deleted(String cloud, String name, long size) {
      names.computeIfAbsent(cloud, x -> new ArrayList<>()).add(name);
      bytes += size;
    }

    synchronized void failed(CloudFault fault) {
      faults.add(fault);
    }

    synchronized void addAll(Deleted other) {
      Map<String, List<String>> n = other.names();
      n.forEach((c, l) -> names.computeIfAbsent(c, k -> new ArrayList<>()).addAll(l));
      bytes += other.bytes();
      faults.addAll(other.faults());
    }

    synchronized Map<String, List<String>> names() {
      Map<String, List<String>> out = new TreeMap<>();
      names.forEach((c, l) -> out.put(c, List.copyOf(l)));
      return out;
    }

    synchronized long bytes() {
      return bytes;
    }

    synchronized List<CloudFault> faults() {
      return List.copyOf(faults);
    }

    synchronized Map<String, Integer> counts() {
      Map<String, Integer> out = new TreeMap<>();
      names.forEach((c, l) -> out.put(c, l.size()));
      return out;
    }
  }

  /** The clouds that may hold data objects: data clouds, or every cloud in the DepSky modes. */
  static List<Cloud> dataHolders(Context ctx) {
    boolean depsky =
        ctx.settings.mode() == ProtocolMode.DEPSKY_A
            || ctx.settings.mode() == ProtocolMode.DEPSKY_CA;
    List<Cloud> out = new ArrayList<>();
    for (Cloud c : ctx.clouds) {
      if (depsky || c.role().holdsData()) {
        out.add(c);
      }
    }
    return out;
  }

  /** The listing prefix of every data object of {@code key}. */
  public static String dataPrefix(String key) {
    return Names.DATA_PREFIX + Names.encodeKey(key) + "/";
  }

  /** The listing prefix of every metadata object of {@code key}. */
  public static String metadataPrefix(String key) {
    return Names.METADATA_PREFIX + Names.encodeKey(key) + "/";
  }

  /**
   * Lists the key's data objects on every cloud that may hold data and deletes those {@code doomed}
   * accepts; counts what was really there, so reports do not count deletes of absent objects.
   */
  static CompletableFuture<Deleted> deleteListed(
      Context ctx, String key, java.util.function.Predicate<String> doomed) {
    return deleteUnder(ctx, key, dataHolders(ctx), dataPrefix(key), doomed);
  }

  /**
   * Lists {@code prefix} on each of {@code clouds} page by page and deletes the objects {@code
   * doomed} accepts. Finishes at a quorum (all but f of the clouds, {@link QuorumGather}): a cloud
   * that has not finished its listing and deletes within the grace after that is cancelled and
   * reported as a fault, and its objects stay where they are (a later collection, orphan collection
   * or purge finds them: nothing references them any more). What the answering clouds listed is all
   * the pass can conclude; it never takes a cloud's silence as "nothing there".
   */
  static CompletableFuture<Deleted> deleteUnder(
      Context ctx,
      String key,
      List<Cloud> clouds,
      String prefix,
      java.util.function.Predicate<String> doomed) {
    return deleteUnder(ctx, key, clouds, prefix, (c, name) -> doomed.test(name));
  }

  /** {@link #deleteUnder}, deciding per cloud and name. */
  static CompletableFuture<Deleted> deleteUnder(
      Context ctx,
      String key,
      List<Cloud> clouds,
      String prefix,
      java.util.function.BiPredicate<Cloud, String> doomed) {
    Deleted out = new Deleted();
    int quorum = QuorumGather.quorumOf(ctx, clouds);
    // Paced: a cloud whose listing never ends (or runs far ahead) is not followed past a bound,
    // so it costs bounded deletes and memory, and the pass ends once n - f listings ended.
    Listings.Pacing pacing = new Listings.Pacing(ctx, clouds, prefix);
    return QuorumGather.run(
            ctx,
            clouds,
            quorum,
            c ->
                Listings.walk(
                    ctx,
                    pacing,
                    c,
                    prefix,
                    Listings.PAGE,
                    page -> {
                      List<CompletableFuture<Void>> deletes = new ArrayList<>();
                      for (ObjectInfo info : page) {
                        String name = info.key().value();
                        if (!doomed.test(c, name)) {
                          continue;
                        }
                        deletes.add(
                            Verifier.timed(
                                    ctx, c.driver().delete(ObjectKey.of(name)), c.id() + " delete")
                                .handle(
                                    (r, e) -> {
                                      if (e == null) {
                                        out.deleted(c.id(), name, info.size());
                                      } else {
                                        out.failed(fault(c, "delete " + name, e));
                                      }
                                      return null;
                                    }));
                      }
                      return CompletableFuture.allOf(deletes.toArray(new CompletableFuture<?>[0]));
                    }))
        .thenApply(
            r -> {
              r.errors().forEach((c, e) -> out.failed(fault(c, "list " + prefix, e)));
              for (Cloud c : r.late()) {
                out.failed(
                    new CloudFault(
                        c.id(),
                        CloudFault.Kind.ERROR,
                        "list "
                            + prefix
                            + ": "
                            + r.lateReason(quorum)
                            + "; its objects under the prefix were not deleted"));
              }
              for (CloudFault f : out.faults()) {
                ctx.report(key, f);
              }
              return out;
            });
  }

  static CloudFault fault(Cloud c, String what, Throwable e) {
    return new CloudFault(
        c.id(), CloudFault.Kind.ERROR, what + ": " + Futures.unwrap(e).getMessage());
  }

  /** Remembers when this client first saw each unreferenced data object, to apply a grace. */
  public static final class OrphanMemory {
    private final ConcurrentHashMap<String, Long> firstSeen = new ConcurrentHashMap<>();

    long firstSeen(String cloud, String name, long now) {
      if (firstSeen.size() >= ORPHAN_MEMORY_LIMIT) {
        firstSeen.clear();
      }
      return firstSeen.computeIfAbsent(cloud + "\n" + name, k -> now);
    }

    void forget(String cloud, String name) {
      firstSeen.remove(cloud + "\n" + name);
    }
  }

  /**
   * Deletes data objects of {@code key} that no trusted writer's log references and that this
   * client first saw unreferenced at least {@code grace} ago. Writers upload data before they write
   * metadata, so an object of a write in flight is unreferenced for a while: the grace must exceed
   * the writers' operation timeout. The first call for a key only records sightings unless the
   * grace is zero.
   */
  public static CompletableFuture<OrphanReport> collectOrphans(
      Context ctx, OrphanMemory memory, String key, Duration grace) {
    return MetadataRead.run(ctx, key)
        .thenCompose(
            view -> {
              Set<String> referenced = new HashSet<>();
              for (MetadataLog log : view.logs.values()) {
                for (LogEntry e : log.entries()) {
                  if (e.kind() == LogEntry.Kind.VALUE) {
                    referenced.addAll(Layouts.of(e).allObjects());
                  }
                }
              }
              // Packs that only a representation the merge did not take references.
              referenced.addAll(view.packsReferenced);
              long now = ctx.settings.scheduler().nanoTime();
              Map<String, List<String>> waiting = new ConcurrentHashMap<>();
              return sweep(ctx, memory, key, grace, referenced, now, waiting)
                  .thenApply(
                      deleted -> {
                        Map<String, List<String>> names = deleted.names();
                        names.forEach((c, l) -> l.forEach(n -> memory.forget(c, n)));
                        return new OrphanReport(key, names, Map.copyOf(waiting), deleted.faults());
                      });
            });
  }

  /** One pass over every data cloud, finishing at a quorum of listings like every other pass. */
  private static CompletableFuture<Deleted> sweep(
      Context ctx,
      OrphanMemory memory,
      String key,
      Duration grace,
      Set<String> referenced,
      long now,
      Map<String, List<String>> waiting) {
    return deleteUnder(
        ctx,
        key,
        dataHolders(ctx),
        dataPrefix(key),
        (c, name) -> {
          if (referenced.contains(name)) {
            return false;
          }
          long seen = memory.firstSeen(c.id(), name, now);
          if (now - seen >= grace.toNanos()) {
            return true;
          }
          waiting.computeIfAbsent(c.id(), x -> new ArrayList<>()).add(name);
          return false;
        });
  }

  /**
   * Removes every object of a key from every cloud: first a delete (a signed tombstone on a quorum,
   * then the data), then every remaining data object and every writer's metadata log. After a purge
   * a faulty cloud that kept an old log can replay it; readers then find its data gone and fail
   * with an integrity error, never with wrong bytes.
   */
  public static CompletableFuture<Map<String, Integer>> purge(Context ctx, String key) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    CompletableFuture<Void> turn = ctx.enterKey(key, done);
    CompletableFuture<Map<String, Integer>> result =
        turn.thenCompose(x -> MetadataRead.run(ctx, key))
            .thenApply(v -> ctx.ownView(key, v))
            .thenComposeAsync(view -> tombstoneEverywhere(ctx, key, view), ctx.settings.executor())
            .thenCompose(x -> deleteListed(ctx, key, name -> true))
            .thenCompose(
                data ->
                    deleteUnder(ctx, key, ctx.clouds, metadataPrefix(key), name -> true)
                        .thenApply(
                            meta -> {
                              Map<String, Integer> out = new TreeMap<>(data.counts());
                              meta.counts().forEach((c, n) -> out.merge(c, n, Integer::sum));
                              return out;
                            }));
    Futures.onEnd(result, (r, e) -> done.complete(null));
    return result;
  }

  /**
   * Stores a tombstone in this writer's log and waits for <em>every</em> cloud's answer (not a
   * quorum): a put still in flight could otherwise land after the purge deleted the log and leave
   * it behind. Fails if fewer than n - f clouds acknowledged, as a delete would.
   */
  private static CompletableFuture<Void> tombstoneEverywhere(Context ctx, String key, View view) {
    String writer = ctx.settings.writerId();
    LogEntry tombstone = LogEntry.tombstone(view.maxTimestamp + 1, ctx.settings.clock().millis());
    MetadataLog next = Logs.append(view.logOf(writer), view, tombstone, ctx.incarnation());
    byte[] bytes = ctx.codec.encode(next, ctx.settings.writerKeys().getPrivate());
    ctx.rememberOwnLog(next);
    ObjectKey object = Names.metadataObject(key, writer);
    java.util.function.Function<Cloud, byte[]> payloads =
        KeyShares.payloads(ctx, view, next, bytes, null);
    List<CompletableFuture<Boolean>> puts = new ArrayList<>();
    List<CloudFault> faults = new ArrayList<>();
    for (Cloud c : ctx.clouds) {
      puts.add(
          Verifier.timed(ctx, c.driver().put(object, payloads.apply(c)), c.id() + " put")
              .handle(
                  (r, e) -> {
                    if (e != null) {
                      synchronized (faults) {
                        faults.add(fault(c, "purge tombstone", e));
                      }
                    }
                    return e == null;
                  }));
    }
    return CompletableFuture.allOf(puts.toArray(new CompletableFuture<?>[0]))
        .thenCompose(
            x -> {
              long acks = puts.stream().filter(CompletableFuture::join).count();
              if (acks < ctx.settings.quorum()) {
                synchronized (faults) {
                  return CompletableFuture.failedFuture(
                      new io.rafestore.QuorumException(
                          "purge tombstone of '" + key + "'",
                          ctx.settings.quorum(),
                          (int) acks,
                          List.copyOf(faults)));
                }
              }
              return CompletableFuture.completedFuture(null);
            });
  }
}
