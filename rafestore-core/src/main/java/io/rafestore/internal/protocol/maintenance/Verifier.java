package io.rafestore.internal.protocol.maintenance;

import io.rafestore.RepairReport;
import io.rafestore.VerifyReport;
import io.rafestore.VerifyReport.Finding;
import io.rafestore.VerifyReport.Problem;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.layout.KeyShares;
import io.rafestore.internal.protocol.layout.Layouts;
import io.rafestore.internal.protocol.layout.ValueLayout;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.LogMerge;
import io.rafestore.internal.protocol.metadata.MalformedMetadataException;
import io.rafestore.internal.protocol.metadata.MetadataCodec;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import io.rafestore.internal.protocol.metadata.View;
import io.rafestore.internal.protocol.quorum.QuorumGather;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.security.PublicKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Verify and repair (scrub) of one key, and the store-wide key listing.
 *
 * <p>Verify asks <em>every</em> cloud (not a quorum) for every trusted writer's log, takes per
 * writer the newest validly signed log any cloud returned (the same rule as readM's merge: a
 * Byzantine cloud cannot forge a signature, so the newest valid log is the truth), and compares
 * each cloud against it. It then checks every listed holder of every retained version for data with
 * the signed hash, as the version's {@link ValueLayout} says the holder keeps it (whole, a coded
 * piece, parts, a joined object part by part). Both phases finish at a quorum of clouds ({@link
 * QuorumGather}): a cloud that has not answered within the grace after all but f did is reported
 * {@link Problem#UNREACHABLE} and its requests are cancelled, so one hung cloud costs a grace, not
 * half the operation timeout.
 *
 * <p>Repair copies the newest log <em>bytes</em> verbatim (metadata is opaque signed bytes; see
 * {@link #copyMetadata}) to every cloud that lacks it or holds an older or invalid one, each copy
 * conditional on the cloud still holding what verify read there (a writer's newer log is never
 * replaced), and has the version's layout restore each data object a listed holder lost ({@link
 * ValueLayout#restore}: copied from a holder whose bytes match the signed hash, or a coded piece
 * rebuilt), all within {@link #copyLimit}; then verifies again.
 */
public final class Verifier {
  private final Context ctx;
  private final String key;

  /** The raw bytes of the newest valid log per writer, kept for repair. */
  private final Map<String, byte[]> newestBytes = new HashMap<>();

  private final Map<String, MetadataLog> newest = new HashMap<>();

  /** Writers whose logs are forked with no single log holding every visible version. */
  private final Set<String> forked = new HashSet<>();

  /**
   * Key shares (confidentiality option) each cloud's object carried: cloud id to writer to entry
   * timestamp to share, unchecked; the shape {@link View#shares} has, so repair can restore a
   * cloud's shares the way writeM does.
   */
  private final Map<String, Map<String, Map<LogEntry.Id, byte[]>>> shares = new HashMap<>();

  private final List<Finding> findings = new ArrayList<>();
  private View view;

  /** The validly signed log each cloud returned, by cloud and writer (for the margins). */
  private final Map<String, Map<String, MetadataLog>> logsOn = new HashMap<>();

  /**
   * What the data checks found, per retained version: by holder, the parts ({@link
   * ValueLayout.Check#part}) found right and those found missing or wrong. Guarded by itself.
   */
  private final Map<io.rafestore.Version, Map<String, Set<Integer>>> validParts = new HashMap<>();

  private final Map<io.rafestore.Version, Map<String, Set<Integer>>> damagedParts = new HashMap<>();

  private Verifier(Context ctx, String key) {
    this.ctx = ctx;
    this.key = key;
  }

  public static CompletableFuture<VerifyReport> verify(Context ctx, String key) {
    Verifier v = new Verifier(ctx, key);
    return v.run();
  }

  public static CompletableFuture<RepairReport> repair(Context ctx, String key) {
    Verifier v = new Verifier(ctx, key);
    return v.run()
        .thenCompose(
            before ->
                v.repairFrom(before)
                    .thenCompose(
                        log ->
                            // Nothing found, nothing done: the state is the one just verified.
                            (before.isClean()
                                    ? CompletableFuture.completedFuture(before)
                                    : verify(ctx, key))
                                .thenApply(
                                    after ->
                                        new RepairReport(
                                            before,
                                            log.actions,
                                            log.failures,
                                            log.superseded,
                                            after))));
  }

  /**
   * One metadata answer of one cloud for one writer.
   *
   * @param tag the cloud's tag for the object read (from a tagged get, {@link
   *     io.rafestore.spi.CloudDriver#getTagged}), null if the driver gives none or there was none
   */
  private record Answer(String cloud, String writer, byte[] bytes, String tag, Throwable error) {
    /** Whether the cloud said it holds no log of the writer. */
    boolean absent() {
      return error != null && notFound(error);
    }
  }

  /** A cloud's answer to {@link #readLog}: its bytes and tag, or its failure. */
  private static Answer answer(
      Cloud c, String writer, io.rafestore.spi.TaggedGet t, Throwable error) {
    if (error != null) {
      return new Answer(c.id(), writer, null, null, error);
    }
    if (t.unchanged()) {
      // No tag was sent, so "unchanged" is no answer a correct cloud gives.
      return new Answer(
          c.id(),
          writer,
          null,
          null,
          new CloudException(
              c.id(),
              CloudException.Kind.OTHER,
              "answered \"unchanged\" to a get that sent no tag"));
    }
    return new Answer(c.id(), writer, t.data(), t.tag().orElse(null), null);
  }

  /** Whether {@code error} is a cloud's "no such object". */
  private static boolean notFound(Throwable error) {
    return Futures.unwrap(error) instanceof CloudException ce
        && ce.kind() == CloudException.Kind.NOT_FOUND;
  }

  /**
   * The range every log is read with: one byte more than a log may hold, so a faulty cloud that
   * stores a huge object under a log's name costs at most that much.
   */
  private Optional<ByteRange> logBound() {
    return Optional.of(ByteRange.of(0, ctx.settings.maxMetadataBytes() + 1L));
  }

  /**
   * Every answer, by {@code cloud + "\n" + writer}: what repair's copy of a log onto that cloud is
   * conditional on ({@link #copyMetadata}).
   */
  private final Map<String, Answer> answered = new java.util.concurrent.ConcurrentHashMap<>();

  /** Clouds that did not answer within the grace after a quorum (reported, not asked again). */
  private final Set<String> late = new HashSet<>();

  /** The writers whose logs verify checks, with their keys: every writer trusted now. */
  private Map<String, PublicKey> writerKeys = Map.of();

  private CompletableFuture<VerifyReport> run() {
    return ctx.trust
        .known()
        .thenCompose(
            known -> {
              Map<String, PublicKey> keys = new LinkedHashMap<>();
              known.forEach((w, v) -> keys.put(w, v.key()));
              writerKeys = keys;
              return runWithWriters();
            });
  }

  private CompletableFuture<VerifyReport> runWithWriters() {
    Optional<ByteRange> bound = logBound();
    int quorum = QuorumGather.quorumOf(ctx, ctx.clouds);
    return QuorumGather.run(
            ctx,
            ctx.clouds,
            quorum,
            c -> {
              // One cloud's answer is its logs of every trusted writer; errors become answers.
              List<CompletableFuture<Answer>> gets = new ArrayList<>();
              for (String w : writerKeys.keySet()) {
                gets.add(
                    timed(readLog(c, w, bound), c.id() + " metadata")
                        .handle(
                            (t, e) -> {
                              Answer a = answer(c, w, t, e);
                              answered.put(c.id() + "\n" + w, a);
                              return a;
                            }));
              }
              CompletableFuture<List<Answer>> all =
                  CompletableFuture.allOf(gets.toArray(new CompletableFuture<?>[0]))
                      .thenApply(x -> gets.stream().map(CompletableFuture::join).toList());
              Futures.onEnd(
                  all,
                  (r, e) -> {
                    if (all.isCancelled()) {
                      gets.forEach(g -> g.cancel(true));
                    }
                  });
              return all;
            })
        .thenComposeAsync(
            r -> {
              List<Answer> answers = new ArrayList<>();
              r.values().values().forEach(answers::addAll);
              for (Cloud c : r.late()) {
                late.add(c.id());
                addFinding(
                    new Finding(c.id(), Problem.UNREACHABLE, "metadata", r.lateReason(quorum)));
              }
              judgeMetadata(answers);
              return checkData();
            },
            ctx.settings.executor());
  }

  /**
   * Decodes every answer, merges each writer's valid logs as readM does ({@link LogMerge}), picks
   * per writer the log repair copies (the newest single log that holds everything the merge shows,
   * {@link LogMerge#covers}) and records metadata findings against it.
   */
  private void judgeMetadata(List<Answer> answers) {
    Map<Answer, MetadataLog> decoded = new LinkedHashMap<>();
    Map<String, List<MetadataLog>> byWriter = new HashMap<>();
    Map<MetadataLog, byte[]> bytesOf = new java.util.IdentityHashMap<>();
    Set<String> unreachable = new HashSet<>();
    for (Answer a : answers) {
      if (a.error != null) {
        if (!a.absent()) {
          if (unreachable.add(a.cloud)) {
            addFinding(
                new Finding(
                    a.cloud,
                    Problem.UNREACHABLE,
                    a.writer,
                    String.valueOf(Futures.unwrap(a.error))));
          }
        }
        continue;
      }
      PublicKey pk = writerKeys.get(a.writer);
      try {
        MetadataCodec.Envelope env =
            ctx.codec.decodeEnvelope(a.bytes, key, a.writer, pk, ctx.settings.maxMetadataBytes());
        MetadataLog log = env.log();
        decoded.put(a, log);
        logsOn.computeIfAbsent(a.cloud, c -> new HashMap<>()).put(a.writer, log);
        byWriter.computeIfAbsent(a.writer, w -> new ArrayList<>()).add(log);
        bytesOf.putIfAbsent(log, MetadataCodec.signedLogOf(a.bytes));
        if (!env.shares().isEmpty()) {
          shares.computeIfAbsent(a.cloud, c -> new HashMap<>()).put(a.writer, env.shares());
        }
      } catch (MalformedMetadataException e) {
        addFinding(new Finding(a.cloud, Problem.METADATA_INVALID, a.writer, e.getMessage()));
      }
    }
    Map<String, MetadataLog> merged = new HashMap<>();
    byWriter.forEach((w, logs) -> merged.put(w, LogMerge.merge(logs)));
    view = new View(key, merged, List.of(), false, shares);
    byWriter.forEach(
        (w, logs) -> {
          List<MetadataLog> candidates = new ArrayList<>(logs);
          candidates.sort((a, b) -> a == b ? 0 : LogMerge.newer(a, b) == a ? -1 : 1);
          for (MetadataLog c : candidates) {
            if (LogMerge.covers(c, merged.get(w), view)) {
              newest.put(w, c);
              newestBytes.put(w, bytesOf.get(c));
              return;
            }
          }
          // Forked incarnations (a crashed writer's log beside its successor's) and no single log
          // holds every visible version: copying one would hide the others. The writer's next log
          // of the key merges them; until then repair leaves the logs as they are.
          forked.add(w);
          newest.put(w, candidates.get(0));
        });
    Set<String> lagsExpected = expectedLag(answers, decoded, unreachable);
    for (Answer a : answers) {
      MetadataLog top = newest.get(a.writer);
      if (top == null || unreachable.contains(a.cloud)) {
        continue;
      }
      MetadataLog mine = decoded.get(a);
      if (lagsExpected.contains(a.cloud + "\n" + a.writer)
          && (mine == null && a.bytes == null || mine != null && !mine.equals(top))) {
        synchronized (lagging) {
          lagging.add(
              new Finding(
                  a.cloud,
                  mine == null ? Problem.METADATA_MISSING : Problem.METADATA_STALE,
                  a.writer,
                  (mine == null ? "no log" : "sequence " + mine.sequence())
                      + ", newest is "
                      + top.sequence()
                      + " on "
                      + holdersOfNewest.getOrDefault(a.writer, 0)
                      + " clouds (n - f = "
                      + ctx.settings.quorum()
                      + "): left behind by writeM under the "
                      + ctx.settings.objective()
                      + " objective"));
        }
        continue;
      }
      if (mine == null && a.bytes == null) {
        addFinding(
            new Finding(
                a.cloud,
                Problem.METADATA_MISSING,
                a.writer,
                "no log; newest is sequence " + top.sequence()));
      } else if (mine != null && forked.contains(a.writer)) {
        addFinding(
            new Finding(
                a.cloud,
                Problem.METADATA_STALE,
                a.writer,
                "sequence "
                    + mine.sequence()
                    + " is one of forked logs of two incarnations of the writer (a crash during"
                    + " writeM); no single log holds every version, the writer's next write to the"
                    + " key merges them"));
      } else if (mine != null && !mine.equals(top)) {
        addFinding(
            new Finding(
                a.cloud,
                Problem.METADATA_STALE,
                a.writer,
                "sequence " + mine.sequence() + ", newest is " + top.sequence()));
      } else if (mine != null) {
        checkShares(a.cloud, top);
      }
    }
    for (String w : forked) {
      newestBytes.remove(w);
    }
  }

  /** Lagging logs the client's writeM leaves by design ({@link VerifyReport#laggingLogs}). */
  private final List<Finding> lagging = new ArrayList<>();

  /** Per writer, how many answering clouds hold its newest log. */
  private final Map<String, Integer> holdersOfNewest = new HashMap<>();

  /**
   * The (cloud, writer) pairs, as {@code cloud + "\n" + writer}, whose older or absent log is the
   * lag a cost-minded writeM leaves (design.md section 12, "Lagging logs under the cost
   * objective"): only when this client's own writeM may leave clouds behind ({@link
   * Context#logsMayLag}), and per writer whose logs are not forked. When at least n - f answering
   * clouds hold the newest log, every other valid-but-older or missing log of that writer is
   * expected; when fewer do, the cheapest of the lagging clouds (as writeM ranks them) that bring
   * it back to n - f are findings (repair copies to them), the rest are expected. Invalid logs and
   * clouds that did not answer are never expected.
   */
  private Set<String> expectedLag(
      List<Answer> answers, Map<Answer, MetadataLog> decoded, Set<String> unreachable) {
    Set<String> out = new HashSet<>();
    if (!ctx.logsMayLag()) {
      return out;
    }
    int quorum = ctx.settings.quorum();
    Map<String, List<String>> behind = new HashMap<>();
    for (Answer a : answers) {
      MetadataLog top = newest.get(a.writer);
      if (top == null || unreachable.contains(a.cloud) || forked.contains(a.writer)) {
        continue;
      }
      MetadataLog mine = decoded.get(a);
      if (mine != null && mine.equals(top)) {
        holdersOfNewest.merge(a.writer, 1, Integer::sum);
      } else if (mine == null && a.bytes == null || mine != null) {
        behind.computeIfAbsent(a.writer, w -> new ArrayList<>()).add(a.cloud);
      }
    }
    behind.forEach(
        (writer, clouds) -> {
          int needed = Math.max(0, quorum - holdersOfNewest.getOrDefault(writer, 0));
          clouds.sort(
              java.util.Comparator.comparingDouble(
                      (String c) ->
                          io.rafestore.internal.protocol.selection.LogTargets.usd(
                              ctx.prices.of(c), newestBytes.get(writer).length))
                  .thenComparingInt(c -> ctx.clouds.indexOf(ctx.byId.get(c))));
          for (int i = needed; i < clouds.size(); i++) {
            out.add(clouds.get(i) + "\n" + writer);
          }
        });
    return out;
  }

  /** Under the confidentiality option: does {@code cloud} hold its valid share of every entry? */
  private void checkShares(String cloud, MetadataLog log) {
    for (LogEntry e : log.entries()) {
      int i = e.shareHolders().indexOf(cloud);
      if (i < 0) {
        continue;
      }
      byte[] share =
          shares.getOrDefault(cloud, Map.of()).getOrDefault(log.writer(), Map.of()).get(e.id());
      if (share == null || !Sha256.matches(share, e.shareHashUnsafe(i))) {
        addFinding(
            new Finding(
                cloud,
                Problem.KEY_SHARE_MISSING,
                log.writer(),
                "no valid key share of version " + e.version(log.writer())));
        return;
      }
    }
  }

  /** One data check: one object (the value, or one part of it) on a holder of a version. */
  private record DataCheck(
      String cloud, View.Item item, ValueLayout layout, ValueLayout.Check check) {}

  private CompletableFuture<VerifyReport> checkData() {
    // Per cloud, every check of that cloud: its data objects and the listing of the key's data.
    Map<String, List<Supplier<CompletableFuture<Void>>>> perCloud = new LinkedHashMap<>();
    // The bytes each cloud's checks ask for, so a holder of a large value gets the time its bytes
    // need after the quorum (QuorumGather's grace), not a listing's.
    Map<String, Long> bytesOn = new HashMap<>();
    Map<String, Set<String>> listedOn = new HashMap<>();
    // Packed versions share their pack: each (holder, object, range) is checked once.
    Set<String> scheduled = new HashSet<>();
    for (View.Item it : view.visible) {
      ValueLayout layout = Layouts.of(it.entry());
      for (String holder : it.entry().holders()) {
        Cloud c = ctx.byId.get(holder);
        if (c == null || late.contains(holder)) {
          continue;
        }
        listedOn.computeIfAbsent(holder, h -> new HashSet<>()).addAll(layout.objectsOn(holder));
        for (ValueLayout.Check check : layout.checksOn(holder)) {
          if (!scheduled.add(holder + "\n" + check.object() + "\n" + check.range())) {
            continue;
          }
          DataCheck dc = new DataCheck(holder, it, layout, check);
          long asked =
              check.range().isPresent()
                  ? check.range().get().length()
                  : (it.entry().partCount() > 1
                      ? it.entry().storedPartSize(check.part())
                      : it.entry().storedSize());
          bytesOn.merge(holder, asked, Long::sum);
          perCloud
              .computeIfAbsent(holder, h -> new ArrayList<>())
              .add(
                  () ->
                      inflight(
                              holder,
                              timed(
                                  c.driver().get(ObjectKey.of(check.object()), check.range()),
                                  holder + " data"))
                          .handleAsync(
                              (bytes, e) -> {
                                judgeData(dc, bytes, e);
                                return null;
                              },
                              ctx.settings.executor()));
        }
      }
    }
    Map<String, List<String>> extra = new TreeMap<>();
    List<Cloud> listed = new ArrayList<>();
    for (Cloud c : Maintenance.dataHolders(ctx)) {
      if (!late.contains(c.id())) {
        listed.add(c);
      }
    }
    // Paced like every maintenance listing: an endless or far longer listing is not followed.
    Listings.Pacing pacing = new Listings.Pacing(ctx, listed, Maintenance.dataPrefix(key));
    for (Cloud c : listed) {
      List<String> names = new ArrayList<>();
      perCloud
          .computeIfAbsent(c.id(), h -> new ArrayList<>())
          .add(
              () ->
                  Listings.walk(
                          ctx,
                          pacing,
                          c,
                          Maintenance.dataPrefix(key),
                          Listings.PAGE,
                          page -> {
                            Set<String> mine = listedOn.getOrDefault(c.id(), Set.of());
                            for (ObjectInfo o : page) {
                              if (!mine.contains(o.key().value())) {
                                names.add(o.key().value());
                              }
                            }
                            return CompletableFuture.completedFuture(null);
                          })
                      .handle(
                          (x, e) -> {
                            // A listing cut short (late, or failed) reports no extra objects.
                            if (e != null
                                && Futures.unwrap(e) instanceof Listings.NotFollowed cut) {
                              addFinding(
                                  new Finding(
                                      c.id(), Problem.UNREACHABLE, "data", cut.getMessage()));
                            }
                            if (e == null && !names.isEmpty()) {
                              synchronized (extra) {
                                extra.put(c.id(), names);
                              }
                            }
                            return null;
                          }));
    }
    List<Cloud> asked = new ArrayList<>();
    perCloud.keySet().forEach(id -> asked.add(ctx.byId.get(id)));
    int quorum = QuorumGather.quorumOf(ctx, asked);
    return QuorumGather.run(
            ctx,
            asked,
            quorum,
            c -> {
              List<CompletableFuture<Void>> checks = new ArrayList<>();
              perCloud.get(c.id()).forEach(s -> checks.add(s.get()));
              CompletableFuture<Void> all =
                  CompletableFuture.allOf(checks.toArray(new CompletableFuture<?>[0]));
              Futures.onEnd(
                  all,
                  (r, e) -> {
                    if (all.isCancelled()) {
                      checks.forEach(ch -> ch.cancel(true));
                      List<CompletableFuture<?>> raw;
                      synchronized (inflight) {
                        raw = inflight.getOrDefault(c.id(), List.of());
                      }
                      raw.forEach(g -> g.cancel(true));
                    }
                  });
              return all;
            },
            c -> bytesOn.getOrDefault(c.id(), 0L))
        .thenApply(
            r -> {
              for (Cloud c : r.late()) {
                addFinding(new Finding(c.id(), Problem.UNREACHABLE, "data", r.lateReason(quorum)));
              }
              synchronized (extra) {
                return report(new TreeMap<>(extra));
              }
            });
  }

  /** Requests to each cloud in the data phase, to cancel if the cloud is late. */
  private final Map<String, List<CompletableFuture<?>>> inflight = new HashMap<>();

  private <T> CompletableFuture<T> inflight(String cloud, CompletableFuture<T> request) {
    synchronized (inflight) {
      inflight.computeIfAbsent(cloud, c -> new ArrayList<>()).add(request);
    }
    return request;
  }

  private void judgeData(DataCheck dc, byte[] bytes, Throwable e) {
    Finding f = null;
    if (e != null) {
      Throwable cause = Futures.unwrap(e);
      boolean missing = notFound(cause);
      if (missing) {
        mark(damagedParts, dc);
      }
      f =
          new Finding(
              dc.cloud,
              missing ? Problem.DATA_MISSING : Problem.UNREACHABLE,
              dc.check.object(),
              "version " + dc.item.version() + dc.check.note() + ": " + cause.getMessage());
    } else if (dc.layout.holds(dc.cloud, dc.check, bytes)) {
      mark(validParts, dc);
    } else {
      mark(damagedParts, dc);
      f =
          new Finding(
              dc.cloud,
              Problem.DATA_CORRUPT,
              dc.check.object(),
              "version "
                  + dc.item.version()
                  + dc.check.note()
                  + ": bytes do not match the signed hash");
    }
    if (f != null) {
      addFinding(f);
    }
  }

  private static void mark(
      Map<io.rafestore.Version, Map<String, Set<Integer>>> into, DataCheck dc) {
    synchronized (into) {
      into.computeIfAbsent(dc.item.version(), v -> new HashMap<>())
          .computeIfAbsent(dc.cloud, c -> new HashSet<>())
          .add(dc.check.part());
    }
  }

  /** What the data checks found of {@code it} on its holders. */
  private ValueLayout.Health health(View.Item it) {
    synchronized (validParts) {
      synchronized (damagedParts) {
        return new ValueLayout.Health(
            it.entry().holders(),
            validParts.getOrDefault(it.version(), Map.of()),
            damagedParts.getOrDefault(it.version(), Map.of()));
      }
    }
  }

  /**
   * How many more faults {@code it} survives: the least of its data's ({@link
   * ValueLayout#survival}), its metadata's (clouds whose valid log of the writer holds the entry,
   * minus one) and, when sealed, its key shares' (valid shares minus the f+1 a reader needs).
   */
  private VerifyReport.Margin margin(View.Item it) {
    LogEntry e = it.entry();
    String writer = it.version().writer();
    List<ValueLayout.Survival> limits = new ArrayList<>();
    limits.add(Layouts.of(e).survival(health(it)));
    int logs = 0;
    for (Map<String, MetadataLog> byWriter : logsOn.values()) {
      MetadataLog log = byWriter.get(writer);
      if (log != null && log.entries().stream().anyMatch(x -> x.id().equals(e.id()))) {
        logs++;
      }
    }
    limits.add(
        new ValueLayout.Survival(
            logs - 1,
            "metadata: on " + logs + " cloud" + (logs == 1 ? "" : "s"),
            logs == 0 ? List.of("the signed log of " + writer) : List.of()));
    if (!e.shareHolders().isEmpty()) {
      int valid = 0;
      for (int i = 0; i < e.shareHolders().size(); i++) {
        byte[] share =
            shares
                .getOrDefault(e.shareHolders().get(i), Map.of())
                .getOrDefault(writer, Map.of())
                .get(e.id());
        if (share != null && Sha256.matches(share, e.shareHashUnsafe(i))) {
          valid++;
        }
      }
      int needed = ctx.f() + 1;
      limits.add(
          new ValueLayout.Survival(
              valid - needed,
              "key shares: " + valid + " valid, " + needed + " needed",
              valid < needed
                  ? List.of("key shares (" + valid + " of " + needed + ")")
                  : List.of()));
    }
    ValueLayout.Survival least = limits.get(0);
    List<String> missing = new ArrayList<>();
    for (ValueLayout.Survival s : limits) {
      if (s.faults() < least.faults()) {
        least = s;
      }
      missing.addAll(s.missing());
    }
    return new VerifyReport.Margin(it.version(), least.faults(), least.weakest(), missing);
  }

  private void addFinding(Finding f) {
    synchronized (findings) {
      findings.add(f);
    }
  }

  private VerifyReport report(Map<String, List<String>> extra) {
    Map<String, Long> seqs = new TreeMap<>();
    newest.forEach((w, log) -> seqs.put(w, log.sequence()));
    List<io.rafestore.Version> retained = new ArrayList<>();
    view.visible.forEach(it -> retained.add(it.version()));
    List<String> ids = new ArrayList<>();
    ctx.clouds.forEach(c -> ids.add(c.id()));
    List<Finding> all;
    synchronized (findings) {
      all = new ArrayList<>(findings);
    }
    all.sort(
        java.util.Comparator.comparing(Finding::cloudId)
            .thenComparing(Finding::problem)
            .thenComparing(Finding::subject));
    List<VerifyReport.Margin> margins = new ArrayList<>();
    view.visible.forEach(it -> margins.add(margin(it)));
    List<Finding> behind;
    synchronized (lagging) {
      behind = new ArrayList<>(lagging);
    }
    behind.sort(java.util.Comparator.comparing(Finding::cloudId).thenComparing(Finding::subject));
    return new VerifyReport(key, ids, seqs, retained, all, extra, margins, behind);
  }

  /**
   * Copies made and failed. Once {@link #close}d (the copy phase's time is up) every copy not yet
   * recorded is reported as not finished, and a copy that ends after is no longer recorded.
   */
  private static final class RepairLog {
    final List<String> actions = new ArrayList<>();
    final List<String> failures = new ArrayList<>();
    final List<String> superseded = new ArrayList<>();
    private final Set<Copy> recorded = new HashSet<>();
    private boolean closed;

    synchronized void failed(String a) {
      failures.add(a);
    }

    /** Records how {@code c} ended, unless the phase was closed first. */
    synchronized void ended(Copy c, Throwable error) {
      if (closed || !recorded.add(c)) {
        return;
      }
      Throwable cause = error == null ? null : Futures.unwrap(error);
      if (cause == null) {
        actions.add(c.what());
      } else if (cause instanceof Superseded) {
        superseded.add(c.what() + ": " + cause.getMessage());
      } else {
        failures.add(c.what() + ": " + cause.getMessage());
      }
    }

    /**
     * Ends recording: each of {@code copies} not recorded yet did not finish within {@code limit}.
     */
    synchronized void close(List<Copy> copies, Duration limit) {
      if (closed) {
        return;
      }
      closed = true;
      for (Copy c : copies) {
        if (!recorded.contains(c)) {
          failures.add(
              c.what()
                  + ": did not finish within "
                  + limit
                  + " (a quarter of the operation timeout); cancelled, left for the next repair");
        }
      }
    }
  }

  /** A copy of a log not made because the cloud's log changed since verify read it. */
  private static final class Superseded extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Superseded() {
      super(
          "not copied: the log there changed since repair read it (its writer stored a newer one,"
              + " most likely), and repair does not replace it",
          null,
          false,
          false);
    }
  }

  /** One copy of the repair: what it restores and its future. */
  private record Copy(String what, CompletableFuture<Void> done) {}

  /**
   * How long repair's copies may run, from the first: a quarter of the operation timeout (half a
   * request's limit), so a copy that waits on a hung cloud (a source tried first, a damaged holder
   * that stopped answering since verify) ends in time for the verify that follows, and the repair
   * within its operation timeout. A copy still out then is cancelled and reported as not finished;
   * the next repair (or the scrubber's next pass) tries again.
   */
  private Duration copyLimit() {
    return ctx.requestLimit.dividedBy(2);
  }

  private CompletableFuture<RepairLog> repairFrom(VerifyReport before) {
    RepairLog log = new RepairLog();
    List<Copy> copies = new ArrayList<>();
    for (Finding f : before.findings()) {
      switch (f.problem()) {
        case METADATA_MISSING, METADATA_STALE, METADATA_INVALID, KEY_SHARE_MISSING -> {
          byte[] bytes = newestBytes.get(f.subject());
          if (bytes == null) {
            log.failed(
                f.cloudId()
                    + (forked.contains(f.subject())
                        ? ": logs of "
                            + f.subject()
                            + " are forked by a crashed incarnation and no single log holds every"
                            + " version; its next write to the key merges them"
                        : ": no valid log of " + f.subject() + " on any cloud"));
            continue;
          }
          String what =
              f.cloudId()
                  + ": metadata of "
                  + f.subject()
                  + " (sequence "
                  + newest.get(f.subject()).sequence()
                  + ")";
          copies.add(new Copy(what, copyMetadata(ctx.byId.get(f.cloudId()), f.subject(), bytes)));
        }
        case DATA_MISSING, DATA_CORRUPT -> {
          // Repaired below, version by version, from what every holder still holds right.
        }
        case UNREACHABLE -> log.failed(f.cloudId() + ": unreachable, not repaired");
      }
    }
    for (View.Item it : view.visible) {
      ValueLayout.Health health = health(it);
      if (health.damaged().isEmpty()) {
        continue;
      }
      for (ValueLayout.Restore restore :
          Layouts.of(it.entry()).heal(ctx, this::timed, it.version(), health)) {
        copies.add(new Copy(restore.what(), restore.done()));
      }
    }
    CompletableFuture<RepairLog> out = new CompletableFuture<>();
    if (copies.isEmpty()) {
      out.complete(log);
      return out;
    }
    java.util.concurrent.atomic.AtomicInteger left =
        new java.util.concurrent.atomic.AtomicInteger(copies.size());
    Duration limit = copyLimit();
    io.rafestore.Scheduler.Cancellable timer =
        ctx.settings
            .scheduler()
            .schedule(
                limit,
                () -> {
                  log.close(copies, limit);
                  out.complete(log);
                  copies.forEach(c -> c.done().cancel(true));
                });
    for (Copy c : copies) {
      Futures.onEnd(
          c.done(),
          (r, e) -> {
            log.ended(c, e);
            if (left.decrementAndGet() == 0) {
              timer.cancel();
              out.complete(log);
            }
          });
    }
    return out;
  }

  /**
   * One cloud's log of one writer, bounded: a tagged get where the driver offers conditional puts
   * (the tag is what repair's copy onto this cloud is conditional on), a plain get otherwise.
   */
  private CompletableFuture<io.rafestore.spi.TaggedGet> readLog(
      Cloud c, String writer, Optional<ByteRange> bound) {
    ObjectKey name = Names.metadataObject(key, writer);
    if (c.driver().conditionalPuts()) {
      return c.driver().getTagged(name, bound, Optional.empty());
    }
    return Futures.relay(c.driver().get(name, bound), b -> io.rafestore.spi.TaggedGet.of(b, null));
  }

  /**
   * Stores a writer's signed log bytes on one cloud, verbatim, only if the cloud still holds what
   * verify read there. The one place metadata is copied, so a mode whose metadata objects differ
   * per cloud can specialise it.
   *
   * <p>The condition is what makes repair safe beside writers (design.md section 12, "Repair beside
   * writers"): the writer may have put a newer log on this cloud since verify read it, and a plain
   * put would replace it with the older one repair holds, taking a correct holder from a completed
   * write (or, under the confidentiality option, a key share from a new entry). Where the driver
   * offers conditional puts the check and the store are one step at the cloud ({@link
   * io.rafestore.spi.CloudDriver#putIfMatch}: the tag verify's tagged get gave, or "no object"
   * where there was none). Where it does not, the cloud is read again just before a plain put, and
   * the copy is made only if it still answers the same bytes (or still nothing): this narrows the
   * race to one round trip and does not close it. A copy not made because the cloud changed is
   * reported as superseded, not as a failure; the verify after repair shows the state the writer
   * left.
   */
  private CompletableFuture<Void> copyMetadata(Cloud cloud, String writer, byte[] bytes) {
    // Without sealed entries this is the signed log verbatim. Under the confidentiality option
    // the cloud gets an envelope with its own key shares, restored from f+1 valid shares of other
    // clouds exactly as writeM restores them (KeyShares.payloads).
    byte[] payload = KeyShares.payloads(ctx, view, newest.get(writer), bytes, null).apply(cloud);
    ObjectKey name = Names.metadataObject(key, writer);
    Answer read = answered.get(cloud.id() + "\n" + writer);
    if (read == null || !read.absent() && read.bytes == null) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("not copied: verify has no answer of this cloud to check"));
    }
    CompletableFuture<Boolean> stored;
    if (cloud.driver().conditionalPuts() && (read.absent() || read.tag != null)) {
      stored =
          timed(
              cloud.driver().putIfMatch(name, payload, Optional.ofNullable(read.tag)),
              cloud.id() + " conditional put");
    } else {
      CompletableFuture<Boolean> unchanged =
          timed(cloud.driver().get(name, logBound()), cloud.id() + " metadata")
              .handle(
                  (now, e) -> {
                    if (e != null) {
                      if (!notFound(e)) {
                        throw new java.util.concurrent.CompletionException(Futures.unwrap(e));
                      }
                      return read.absent();
                    }
                    return !read.absent() && java.util.Arrays.equals(now, read.bytes);
                  });
      // Composed so that the copy limit's cancel reaches the plain put too.
      stored =
          Futures.compose(
              unchanged,
              same ->
                  same
                      ? Futures.relay(
                          timed(cloud.driver().put(name, payload), cloud.id() + " put"), x -> true)
                      : CompletableFuture.completedFuture(false));
    }
    // Relayed, so the copy limit's cancel reaches the request (the conditional or plain put).
    return Futures.relay(
        stored,
        done -> {
          if (!done) {
            throw new Superseded();
          }
          return null;
        });
  }

  private <T> CompletableFuture<T> timed(CompletableFuture<T> request, String what) {
    return timed(ctx, request, what);
  }

  /**
   * {@code request}, failed with a {@link TimeoutException} (and the request cancelled) if it has
   * not completed within {@link Context#requestLimit} (half the operation timeout): one hung cloud
   * must not stall a maintenance pass over all clouds until the whole operation times out.
   */
  static <T> CompletableFuture<T> timed(Context ctx, CompletableFuture<T> request, String what) {
    return timed(ctx, request, what, ctx.requestLimit);
  }

  /** As {@link #timed(Context, CompletableFuture, String)}, within {@code limit}. */
  static <T> CompletableFuture<T> timed(
      Context ctx, CompletableFuture<T> request, String what, Duration limit) {
    CompletableFuture<T> out = Futures.relay(request);
    io.rafestore.Scheduler.Cancellable timer =
        ctx.settings
            .scheduler()
            .schedule(
                limit,
                () -> {
                  if (out.completeExceptionally(
                      new TimeoutException(what + " did not answer within " + limit))) {
                    request.cancel(true);
                  }
                });
    Futures.onEnd(out, (r, e) -> timer.cancel());
    return out;
  }
}
