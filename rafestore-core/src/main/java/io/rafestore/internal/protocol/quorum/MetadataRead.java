package io.rafestore.internal.protocol.quorum;

import io.rafestore.CloudFault;
import io.rafestore.QuorumException;
import io.rafestore.WriterTrustException;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.LogMerge;
import io.rafestore.internal.protocol.metadata.MalformedMetadataException;
import io.rafestore.internal.protocol.metadata.MetadataCodec;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import io.rafestore.internal.protocol.metadata.View;
import io.rafestore.internal.protocol.trust.Verdict;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.support.Futures;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Phase readM: fetch every trusted writer's log for a key from all n clouds and complete with the
 * merged {@link View} as soon as n - f clouds gave valid replies. The trusted writers and their
 * keys come from the context's {@link io.rafestore.internal.protocol.trust.WriterTrust} (explicit,
 * and certified when operator keys are configured); a certified writer's log whose newest entry was
 * created after its certificate ended is ignored, reported to the listener, not counted against the
 * cloud.
 *
 * <p>A cloud's reply is valid when every one of its per-writer answers is either a log that parses,
 * names the right key and writer and verifies under the writer's key, or "not found". A failed or
 * invalid answer makes the whole cloud's reply invalid: it never counts toward the quorum. If more
 * than f clouds are invalid the phase fails with {@link QuorumException}. Requests still out when
 * the quorum is reached are useless and are cancelled.
 *
 * <p>Why n - f suffices: a write completed only after its log reached n - f clouds, so any n - f
 * replies share at least n - 2f >= f + 1 clouds with it, one of them correct; that correct cloud
 * returns the log (or a newer one), and the highest sequence wins the merge.
 *
 * <p>A caller may also be told of each valid reply that arrives before the quorum ({@link
 * EarlyReply}): a read anticipates its data fetch on the first that names a version it can use.
 * Such a reply is one cloud's, possibly a faulty cloud's stale, replayed or withheld (but validly
 * signed) log; it decides nothing, and only {@link #run}'s view does.
 */
public final class MetadataRead {
  private final Context ctx;
  private final String key;

  /** The writers asked for and their verdicts (every one trusted); set when readM starts. */
  private List<String> writers = List.of();

  private Map<String, Verdict> verdicts = Map.of();

  /** Writers whose logs were refused under their certificates (reported once per readM). */
  private final java.util.Set<String> refused = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private final CompletableFuture<View> result = new CompletableFuture<>();
  private final List<CompletableFuture<byte[]>> inflight = new ArrayList<>();
  private final List<CloudFault> faults = new ArrayList<>();

  /** Valid replies: cloud id to (writer to log); a missing writer means "not found". */
  private final Map<String, Map<String, MetadataLog>> replies = new HashMap<>();

  /** Key shares the valid replies carried: cloud id to writer to timestamp to share (unchecked). */
  private final Map<String, Map<String, Map<LogEntry.Id, byte[]>>> shares = new HashMap<>();

  private int invalid;
  private boolean finished;
  private final EarlyReply early;

  /**
   * Told of each cloud whose reply was valid (every per-writer answer signed and verified, or "not
   * found") and did not complete the quorum, in the order they were checked: at most n - f - 1
   * calls, each on the thread that checked the reply, before readM completes or at the same time.
   * It must return at once and not throw.
   */
  @FunctionalInterface
  public interface EarlyReply {
    /**
     * {@code cloudId}'s valid reply, as a view of that cloud's logs alone (the key shares it
     * carried included); not a quorum's view, and possibly stale.
     */
    void arrived(String cloudId, View view);
  }

  private MetadataRead(Context ctx, String key, EarlyReply early) {
    this.ctx = ctx;
    this.key = key;
    this.early = early;
  }

  /** Runs readM for {@code key}. Cancelling the result cancels the outstanding requests. */
  public static CompletableFuture<View> run(Context ctx, String key) {
    return run(ctx, key, null);
  }

  /**
   * Runs readM for {@code key}, telling {@code early} (if not null) of each valid reply before the
   * quorum. Cancelling the result cancels the outstanding requests.
   */
  public static CompletableFuture<View> run(Context ctx, String key, EarlyReply early) {
    MetadataRead r = new MetadataRead(ctx, key, early);
    // The writers this client trusts now (complete at once with explicit trust alone, or while the
    // certified writers and revocation lists are fresh).
    ctx.trust
        .known()
        .whenComplete(
            (known, error) -> {
              if (error != null) {
                r.result.completeExceptionally(Futures.unwrap(error));
              } else {
                r.start(known);
              }
            });
    return r.result;
  }

  private void start(Map<String, Verdict> known) {
    if (result.isDone()) {
      return;
    }
    this.verdicts = known;
    this.writers = List.copyOf(known.keySet());
    result.whenComplete((v, e) -> cancelInflight());
    if (writers.isEmpty()) {
      // No writer is trusted now: every cloud's reply is the empty one.
      for (Cloud cloud : ctx.clouds) {
        cloudDone(cloud.id(), Map.of(), Map.of(), null);
      }
      return;
    }
    Optional<ByteRange> bound = Optional.of(ByteRange.of(0, ctx.settings.maxMetadataBytes() + 1L));
    for (Cloud cloud : ctx.clouds) {
      CloudReply reply = new CloudReply(cloud.id(), writers.size());
      for (String writer : writers) {
        CompletableFuture<byte[]> get =
            cloud.driver().get(io.rafestore.internal.util.Names.metadataObject(key, writer), bound);
        synchronized (this) {
          inflight.add(get);
        }
        get.handleAsync(
            (bytes, error) -> {
              reply.answer(writer, bytes, error);
              return null;
            },
            ctx.settings.executor());
      }
    }
  }

  private void cancelInflight() {
    List<CompletableFuture<byte[]>> copy;
    synchronized (this) {
      copy = new ArrayList<>(inflight);
      inflight.clear();
    }
    for (CompletableFuture<byte[]> f : copy) {
      f.cancel(true);
    }
  }

  /** Collects one cloud's per-writer answers. */
  private final class CloudReply {
    private final String cloudId;
    private int remaining;
    private final Map<String, MetadataLog> logs = new HashMap<>();
    private final Map<String, Map<LogEntry.Id, byte[]>> sharesOf = new HashMap<>();
    private CloudFault fault;

    CloudReply(String cloudId, int writers) {
      this.cloudId = cloudId;
      this.remaining = writers;
    }

    void answer(String writer, byte[] bytes, Throwable error) {
      MetadataLog log = null;
      Map<LogEntry.Id, byte[]> logShares = Map.of();
      CloudFault f = null;
      if (error != null) {
        Throwable cause = Futures.unwrap(error);
        if (cause instanceof CloudException ce && ce.kind() == CloudException.Kind.NOT_FOUND) {
          // A valid answer: this writer has no log for the key on this cloud.
        } else if (Futures.isCancellation(cause)) {
          return;
        } else {
          f =
              new CloudFault(
                  cloudId, CloudFault.Kind.ERROR, "readM " + writer + ": " + cause.getMessage());
        }
      } else {
        Verdict verdict = verdicts.get(writer);
        PublicKey pk = verdict.key();
        try {
          MetadataCodec.Envelope env =
              ctx.codec.decodeEnvelope(bytes, key, writer, pk, ctx.settings.maxMetadataBytes());
          log = env.log();
          logShares = env.shares();
          WriterTrustException why = verdict.refuses(log);
          if (why != null) {
            // The writer's own doing (every correct cloud holds these signed bytes), not the
            // cloud's: the log is ignored, as an untrusted writer's would be.
            log = null;
            logShares = Map.of();
            if (refused.add(writer)) {
              ctx.observer.writerRejected(key, why);
              ctx.trust.suspect(writer);
            }
          }
        } catch (MalformedMetadataException e) {
          f = new CloudFault(cloudId, e.kind(), "log of " + writer + ": " + e.getMessage());
        }
      }
      boolean complete;
      synchronized (this) {
        if (f != null && fault == null) {
          fault = f;
        }
        if (log != null) {
          logs.put(writer, log);
          if (!logShares.isEmpty()) {
            sharesOf.put(writer, logShares);
          }
        }
        complete = --remaining == 0;
      }
      if (complete) {
        allAnswered();
      }
    }

    private void allAnswered() {
      CloudFault f;
      Map<String, MetadataLog> copy;
      Map<String, Map<LogEntry.Id, byte[]>> sharesCopy;
      synchronized (this) {
        f = fault;
        copy = Map.copyOf(logs);
        sharesCopy = Map.copyOf(sharesOf);
      }
      MetadataRead.this.cloudDone(cloudId, copy, sharesCopy, f);
    }
  }

  private void cloudDone(
      String cloudId,
      Map<String, MetadataLog> logs,
      Map<String, Map<LogEntry.Id, byte[]>> cloudShares,
      CloudFault fault) {
    View view = null;
    View alone = null;
    List<CloudFault> stale = List.of();
    QuorumException failure = null;
    synchronized (this) {
      if (finished) {
        return;
      }
      if (fault != null) {
        faults.add(fault);
        invalid++;
        if (invalid > ctx.settings.n() - ctx.settings.quorum()) {
          failure =
              new QuorumException(
                  "readM of '" + key + "'", ctx.settings.quorum(), replies.size(), faults);
          finished = true;
        }
      } else {
        replies.put(cloudId, logs);
        if (!cloudShares.isEmpty()) {
          shares.put(cloudId, cloudShares);
        }
        if (replies.size() >= ctx.settings.quorum()) {
          view = merge();
          stale = view.faults.subList(faults.size(), view.faults.size());
          finished = true;
        } else if (early != null) {
          alone =
              new View(
                  key,
                  logs,
                  List.of(),
                  false,
                  cloudShares.isEmpty() ? Map.of() : Map.of(cloudId, cloudShares));
        }
      }
    }
    if (alone != null) {
      early.arrived(cloudId, alone);
    }
    if (fault != null) {
      ctx.report(key, fault);
    }
    if (failure != null) {
      result.completeExceptionally(failure);
    } else if (view != null) {
      ctx.reportAll(key, stale);
      result.complete(view);
    }
  }

  /**
   * Merges each writer's logs among the valid replies ({@link LogMerge#merge}); notes clouds whose
   * log is older than the writer's newest.
   */
  private View merge() {
    Map<String, List<MetadataLog>> byWriter = new HashMap<>();
    for (Map<String, MetadataLog> reply : replies.values()) {
      for (MetadataLog log : reply.values()) {
        byWriter.computeIfAbsent(log.writer(), w -> new ArrayList<>()).add(log);
      }
    }
    Map<String, MetadataLog> merged = new HashMap<>();
    Map<String, List<LogEntry>> shadowed = new HashMap<>();
    Map<String, MetadataLog> newest = new HashMap<>();
    byWriter.forEach(
        (writer, logs) -> {
          LogMerge.Merged m = LogMerge.mergeWithShadowed(logs);
          merged.put(writer, m.log());
          if (!m.shadowed().isEmpty()) {
            shadowed.put(writer, m.shadowed());
          }
          newest.put(writer, logs.stream().reduce(LogMerge::newer).orElseThrow());
        });
    List<CloudFault> all = new ArrayList<>(faults);
    for (Map.Entry<String, Map<String, MetadataLog>> reply : replies.entrySet()) {
      for (MetadataLog top : newest.values()) {
        MetadataLog theirs = reply.getValue().get(top.writer());
        if (theirs == null || (theirs != top && LogMerge.newer(theirs, top) == top)) {
          long seq = theirs == null ? 0 : theirs.sequence();
          all.add(
              new CloudFault(
                  reply.getKey(),
                  CloudFault.Kind.STALE_METADATA,
                  "log of "
                      + top.writer()
                      + " at sequence "
                      + seq
                      + (theirs != null && theirs.sequence() == top.sequence()
                          ? " of another incarnation than the newest"
                          : " < " + top.sequence())
                      + " (lagging, replaying an old log, or holding a crashed incarnation's)"));
        }
      }
    }
    return new View(key, merged, all, false, shares, shadowed);
  }
}
