package io.rafestore.internal.protocol.quorum;

import io.rafestore.CloudFault;
import io.rafestore.QuorumException;
import io.rafestore.RevocationList;
import io.rafestore.WriterCertificate;
import io.rafestore.WriterTrustException;
import io.rafestore.WriterTrustException.Reason;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.trust.Verdict;
import io.rafestore.internal.protocol.trust.WriterTrust;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.security.PublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writer trust with operator keys: explicit writers as configured, and certified writers whose
 * certificates ({@code c/<writer>}) and whose operators' revocation lists ({@code r/<operator>})
 * are read from the clouds (design.md section 4, "Writer certificates").
 *
 * <p>Every read of the clouds here waits for n - f valid answers, and "not found" or a form that is
 * not acceptable (malformed, forged, of an unknown operator) is a valid answer that offers nothing:
 * a certificate or list stored on n - f clouds shares at least n - 2f >= f + 1 clouds with any n -
 * f answers, one of them correct, so the newest is seen; a faulty cloud can offer only older
 * validly signed ones (it cannot sign), which lose. Only failed requests count against the quorum.
 *
 * <p>Revocation lists: of each operator, the highest sequence seen is kept for the life of the
 * client, so a cloud replaying an older list cannot undo a revocation this client once saw. The
 * lists and the set of certified writers are read again when a read finds them older than {@code
 * trustRefresh} (measured from when their reading started); that read waits for them.
 *
 * <p>Thread-safe.
 */
public final class CertifiedTrust implements WriterTrust {
  /** Most certified writers one listing of {@code c/} may name; the rest are ignored, reported. */
  public static final int MAX_CERTIFIED = 10_000;

  private final Context ctx;
  private final Map<String, Verdict> explicit;
  private final Map<String, PublicKey> operators;
  private final long refreshNanos;

  /** The newest valid certificate seen per writer (signature checked). */
  private final Map<String, WriterCertificate> certificates = new ConcurrentHashMap<>();

  /** Writers whose certificate is to be read again (a log refused under the one held). */
  private final Set<String> suspects = ConcurrentHashMap.newKeySet();

  /** The newest revocation list seen per operator: only ever replaced by a higher sequence. */
  private final Map<String, RevocationList> lists = new HashMap<>();

  private Snapshot snapshot;

  /**
   * Certified writers trusted by a {@link #check} since the snapshot was taken (a writer certified
   * after it, found by a listing readM): known like the snapshot's until the next refresh, which
   * judges them again.
   */
  private final Map<String, Verdict> checked = new ConcurrentHashMap<>();

  private CompletableFuture<Snapshot> refreshing;

  /** What one refresh found. */
  private record Snapshot(long startedNanos, Set<String> revoked, Map<String, Verdict> known) {}

  public CertifiedTrust(Context ctx) {
    this.ctx = ctx;
    Map<String, Verdict> ex = new LinkedHashMap<>();
    ctx.settings.trustedWriters().forEach((w, k) -> ex.put(w, Verdict.explicit(w, k)));
    this.explicit = Map.copyOf(ex);
    this.operators = ctx.settings.operators();
    this.refreshNanos = ctx.settings.trustRefresh().toNanos();
  }

  @Override
  public boolean certifies() {
    return true;
  }

  @Override
  public PublicKey keyOf(String writerId) {
    Verdict v = explicit.get(writerId);
    if (v != null) {
      return v.key();
    }
    WriterCertificate c = certificates.get(writerId);
    return c == null ? null : c.writerKey();
  }

  @Override
  public void suspect(String writerId) {
    if (!explicit.containsKey(writerId)) {
      suspects.add(writerId);
    }
  }

  @Override
  public CompletableFuture<Map<String, Verdict>> known() {
    return current().thenApply(this::knownOf);
  }

  @Override
  public CompletableFuture<Verdict> check(String writerId) {
    Verdict v = explicit.get(writerId);
    if (v != null) {
      return CompletableFuture.completedFuture(v);
    }
    return current()
        .thenCompose(
            s -> {
              Verdict known = s.known.get(writerId);
              if (known == null) {
                known = checked.get(writerId);
              }
              if (known != null && !suspects.contains(writerId)) {
                return CompletableFuture.completedFuture(known);
              }
              if (s.revoked.contains(writerId)) {
                // Refused whatever its certificate: no read (a revoked writer's logs stay listed).
                return CompletableFuture.completedFuture(
                    judge(writerId, Optional.empty(), s.revoked));
              }
              return certificateOf(writerId)
                  .thenApply(
                      c -> {
                        Verdict judged = judge(writerId, c, s.revoked);
                        synchronized (this) {
                          // Judged against this snapshot's revocations: kept only while it is the
                          // current one.
                          if (judged.trusted() && snapshot == s) {
                            checked.put(writerId, judged);
                          } else {
                            checked.remove(writerId);
                          }
                        }
                        return judged;
                      });
            });
  }

  /** The newest revocation list seen of {@code operatorKeyId}, if any (read now from a quorum). */
  public CompletableFuture<Optional<RevocationList>> revocations(String operatorKeyId) {
    return readList(operatorKeyId)
        .thenApply(
            x -> {
              synchronized (this) {
                return Optional.ofNullable(lists.get(operatorKeyId));
              }
            });
  }

  /** The snapshot, read again first if it is older than the refresh interval. */
  private CompletableFuture<Snapshot> current() {
    long now = ctx.settings.scheduler().nanoTime();
    synchronized (this) {
      if (snapshot != null && now - snapshot.startedNanos < refreshNanos && suspects.isEmpty()) {
        return CompletableFuture.completedFuture(snapshot);
      }
    }
    return refreshNow(now);
  }

  /**
   * The refresh under way, or one begun now. Not called under the lock: the reads call the drivers,
   * whose callbacks may take it.
   */
  private CompletableFuture<Snapshot> refreshNow(long now) {
    CompletableFuture<Snapshot> r;
    synchronized (this) {
      if (refreshing != null) {
        return refreshing;
      }
      r = new CompletableFuture<>();
      refreshing = r;
      refreshingStarted = now;
    }
    Futures.onEnd(
        refresh(now),
        (s, e) -> {
          synchronized (this) {
            if (refreshing == r) {
              refreshing = null;
            }
            if (s != null) {
              snapshot = s;
              checked.clear();
            }
          }
          if (e != null) {
            r.completeExceptionally(Futures.unwrap(e));
          } else {
            r.complete(s);
          }
        });
    return r;
  }

  /** When the refresh under way began (scheduler nanos); meaningful while {@code refreshing}. */
  private long refreshingStarted;

  /** When the last refresh forced by {@link #knownAfter} began, if any. */
  private long forcedAt;

  private boolean forcedOnce;

  /** The snapshot's writers and those checked since, as {@link #known} gives them. */
  private Map<String, Verdict> knownOf(Snapshot s) {
    if (checked.isEmpty()) {
      return s.known();
    }
    Map<String, Verdict> all = new LinkedHashMap<>(s.known());
    checked.forEach(all::putIfAbsent);
    return Map.copyOf(all);
  }

  @Override
  public Verdict held(String writerId) {
    Verdict v = explicit.get(writerId);
    if (v != null) {
      return v;
    }
    Snapshot s;
    synchronized (this) {
      s = snapshot;
    }
    if (s == null || suspects.contains(writerId)) {
      return null;
    }
    v = s.known.get(writerId);
    if (v == null) {
      v = checked.get(writerId);
    }
    if (v == null && s.revoked.contains(writerId)) {
      v = judge(writerId, Optional.empty(), s.revoked);
    }
    return v;
  }

  @Override
  public CompletableFuture<Map<String, Verdict>> knownAfter(long nanos) {
    long now = ctx.settings.scheduler().nanoTime();
    Snapshot fresh = null;
    CompletableFuture<Snapshot> running;
    boolean runningAfter = false;
    long delay = 0;
    synchronized (this) {
      if (snapshot != null && snapshot.startedNanos - nanos >= 0) {
        fresh = snapshot;
      }
      running = refreshing;
      if (running != null) {
        runningAfter = refreshingStarted - nanos >= 0;
      } else if (fresh == null) {
        long gap = Math.min(refreshNanos, FORCED_REFRESH_GAP.toNanos());
        delay = forcedOnce ? Math.max(0, forcedAt + gap - now) : 0;
        if (delay == 0) {
          forcedOnce = true;
          forcedAt = now;
        }
      }
    }
    if (fresh != null) {
      return CompletableFuture.completedFuture(knownOf(fresh));
    }
    if (running != null) {
      return runningAfter
          ? running.thenApply(this::knownOf)
          : running.thenCompose(s -> knownAfter(nanos));
    }
    if (delay > 0) {
      CompletableFuture<Map<String, Verdict>> later = new CompletableFuture<>();
      ctx.settings
          .scheduler()
          .schedule(
              Duration.ofNanos(delay),
              () ->
                  knownAfter(nanos)
                      .whenComplete(
                          (m, e) -> {
                            if (e != null) {
                              later.completeExceptionally(Futures.unwrap(e));
                            } else {
                              later.complete(m);
                            }
                          }));
      return later;
    }
    return refreshNow(now).thenCompose(s -> knownAfter(nanos));
  }

  private CompletableFuture<Snapshot> refresh(long startedNanos) {
    List<CompletableFuture<Void>> reads = new ArrayList<>();
    for (String op : operators.keySet()) {
      reads.add(readList(op));
    }
    CompletableFuture<Set<String>> listed = listCertified();
    return CompletableFuture.allOf(reads.toArray(new CompletableFuture<?>[0]))
        .thenCombine(listed, (x, names) -> names)
        .thenCompose(
            names -> {
              Set<String> suspected = new java.util.HashSet<>(suspects);
              suspects.removeAll(suspected);
              Set<String> revoked = revoked();
              Instant now = ctx.settings.clock().instant();
              Map<String, CompletableFuture<Optional<WriterCertificate>>> fetches =
                  new LinkedHashMap<>();
              for (String w : names) {
                if (explicit.containsKey(w)) {
                  continue;
                }
                WriterCertificate held = certificates.get(w);
                boolean again =
                    held == null || suspected.contains(w) || now.isAfter(held.notAfter());
                fetches.put(
                    w,
                    again
                        ? certificateOf(w)
                        : CompletableFuture.completedFuture(Optional.of(held)));
              }
              return CompletableFuture.allOf(fetches.values().toArray(new CompletableFuture<?>[0]))
                  .thenApply(
                      y -> {
                        Map<String, Verdict> known = new LinkedHashMap<>(explicit);
                        fetches.forEach(
                            (w, f) -> {
                              Verdict v = judge(w, f.join(), revoked);
                              if (v.trusted()) {
                                known.put(w, v);
                              }
                            });
                        return new Snapshot(startedNanos, revoked, Map.copyOf(known));
                      });
            });
  }

  /** Every writer id any remembered list revokes. */
  private synchronized Set<String> revoked() {
    Set<String> all = new TreeSet<>();
    for (RevocationList l : lists.values()) {
      all.addAll(l.revoked());
    }
    for (Set<String> extra : forks.values()) {
      all.addAll(extra);
    }
    return Set.copyOf(all);
  }

  private Verdict judge(String w, Optional<WriterCertificate> found, Set<String> revoked) {
    if (revoked.contains(w)) {
      return Verdict.refused(
          w, new WriterTrustException(Reason.REVOKED, w, "revoked by an operator's list"));
    }
    if (found.isEmpty()) {
      WriterTrustException why = refusals.get(w);
      return Verdict.refused(
          w,
          why != null
              ? why
              : new WriterTrustException(
                  Reason.NOT_CERTIFIED, w, "no certificate on a quorum of clouds"));
    }
    WriterCertificate c = found.get();
    Instant now = ctx.settings.clock().instant();
    if (now.isBefore(c.notBefore())) {
      return Verdict.refused(
          w,
          new WriterTrustException(
              Reason.NOT_YET_VALID,
              w,
              "certificate valid from " + c.notBefore() + ", it is " + now));
    }
    // An expired certificate still vouches for the entries created before it ended: the log check
    // (Verdict.refuses) applies the period to each log.
    return Verdict.certified(c);
  }

  /** Why the last certificate read of a writer offered nothing usable (for the verdict). */
  private final Map<String, WriterTrustException> refusals = new ConcurrentHashMap<>();

  /**
   * Reads {@code w}'s certificate from n - f clouds: the newest valid one, also compared with the
   * one held. Invalid ones are reported (the first reason is kept for the verdict).
   */
  private CompletableFuture<Optional<WriterCertificate>> certificateOf(String w) {
    ObjectKey name = Names.certificateObject(w);
    return gather(
            "certificate of " + w,
            name,
            WriterCertificate.MAX_BYTES,
            bytes -> {
              WriterCertificate c;
              try {
                c = WriterCertificate.decode(bytes);
              } catch (WriterTrustException e) {
                throw new WriterTrustException(
                    e.reason(), w, "object " + name + ": " + e.getMessage());
              }
              c.verify(operators);
              if (!c.writerId().equals(w)) {
                throw new WriterTrustException(
                    Reason.WRONG_WRITER,
                    w,
                    "object " + name + " holds a certificate of writer '" + c.writerId() + "'");
              }
              return c;
            })
        .thenApply(
            found -> {
              WriterCertificate best = certificates.get(w);
              for (WriterCertificate c : found) {
                if (best == null || c.newerThan(best)) {
                  best = c;
                }
              }
              suspects.remove(w);
              if (best != null) {
                certificates.put(w, best);
                refusals.remove(w);
              }
              return Optional.ofNullable(best);
            });
  }

  /** Reads operator {@code op}'s revocation list from n - f clouds and keeps the newest. */
  private CompletableFuture<Void> readList(String op) {
    ObjectKey name = Names.revocationObject(op);
    return gather(
            "revocation list of " + op,
            name,
            ctx.settings.maxMetadataBytes(),
            bytes -> {
              RevocationList l = RevocationList.decode(bytes);
              l.verify(operators);
              if (!l.operatorKeyId().equals(op)) {
                throw new WriterTrustException(
                    Reason.WRONG_WRITER,
                    null,
                    "object " + name + " holds the list of operator '" + l.operatorKeyId() + "'");
              }
              return l;
            })
        .thenAccept(found -> found.forEach(this::remember));
  }

  /**
   * Keeps {@code l} if its sequence is above the one held. Two different lists of one sequence (an
   * operator that signed both) revoke the writers of both, the safe side, until a higher one comes.
   */
  public synchronized void remember(RevocationList l) {
    RevocationList held = lists.get(l.operatorKeyId());
    if (held == null || l.sequence() > held.sequence()) {
      lists.put(l.operatorKeyId(), l);
      forks.remove(l.operatorKeyId());
    } else if (l.sequence() == held.sequence() && !l.equals(held)) {
      forks.computeIfAbsent(l.operatorKeyId(), k -> new TreeSet<>()).addAll(l.revoked());
    }
  }

  /** Writer ids of same-sequence forks of the held lists, by operator. */
  private final Map<String, Set<String>> forks = new HashMap<>();

  /** The highest sequence held for {@code op}, 0 if none. */
  public synchronized long sequence(String op) {
    RevocationList l = lists.get(op);
    return l == null ? 0 : l.sequence();
  }

  /**
   * Lists {@code c/} on every cloud and returns the union of the writer ids named by n - f
   * successful listings (a certificate stored on n - f clouds is in it; an invented name costs one
   * certificate read per refresh, at most {@link #MAX_CERTIFIED} of them).
   */
  private CompletableFuture<Set<String>> listCertified() {
    int n = ctx.clouds.size();
    int quorum = ctx.settings.quorum();
    CompletableFuture<Set<String>> result = new CompletableFuture<>();
    Set<String> names = ConcurrentHashMap.newKeySet();
    List<CloudFault> faults = new ArrayList<>();
    int[] counts = new int[2]; // ok, failed
    List<CompletableFuture<List<ObjectInfo>>> inflight = new ArrayList<>();
    for (Cloud c : ctx.clouds) {
      CompletableFuture<List<ObjectInfo>> list = c.driver().list(Names.CERTIFICATE_PREFIX);
      inflight.add(list);
      list.whenCompleteAsync(
          (infos, error) -> {
            boolean done;
            boolean failed;
            synchronized (counts) {
              if (result.isDone()) {
                return;
              }
              if (error != null) {
                if (Futures.isCancellation(Futures.unwrap(error))) {
                  return;
                }
                faults.add(
                    new CloudFault(
                        c.id(),
                        CloudFault.Kind.ERROR,
                        "listing certificates: " + Futures.unwrap(error).getMessage()));
                counts[1]++;
              } else {
                for (ObjectInfo i : infos) {
                  String s = i.key().value();
                  if (s.startsWith(Names.CERTIFICATE_PREFIX) && names.size() < MAX_CERTIFIED) {
                    String w = s.substring(Names.CERTIFICATE_PREFIX.length());
                    try {
                      names.add(Names.checkWriterId(w));
                    } catch (IllegalArgumentException e) {
                      // Not a name this code writes: ignored, as listings ignore foreign objects.
                    }
                  }
                }
                counts[0]++;
              }
              done = counts[0] >= quorum;
              failed = counts[1] > n - quorum;
            }
            if (done) {
              result.complete(Set.copyOf(names));
            } else if (failed) {
              result.completeExceptionally(
                  new QuorumException("listing writer certificates", quorum, counts[0], faults));
            }
          },
          ctx.settings.executor());
    }
    Futures.onEnd(result, (r, e) -> inflight.forEach(f -> f.cancel(true)));
    return result;
  }

  /** A parser of one cloud's answer that may refuse it. */
  @FunctionalInterface
  private interface Parse<T> {
    T parse(byte[] bytes) throws WriterTrustException;
  }

  /**
   * Gets {@code name} from every cloud and completes with the acceptable forms among the first n -
   * f valid answers ("not found" and refused forms are valid answers offering nothing; refused ones
   * are reported to the listener). Fails with {@link QuorumException} once more than f requests
   * failed.
   */
  private <T> CompletableFuture<List<T>> gather(
      String what, ObjectKey name, int maxBytes, Parse<T> parse) {
    int n = ctx.clouds.size();
    int quorum = ctx.settings.quorum();
    CompletableFuture<List<T>> result = new CompletableFuture<>();
    List<T> found = new ArrayList<>();
    List<CloudFault> faults = new ArrayList<>();
    int[] counts = new int[2];
    List<CompletableFuture<byte[]>> inflight = new ArrayList<>();
    Optional<ByteRange> bound = Optional.of(ByteRange.of(0, maxBytes + 1L));
    for (Cloud c : ctx.clouds) {
      CompletableFuture<byte[]> get = c.driver().get(name, bound);
      inflight.add(get);
      get.whenCompleteAsync(
          (bytes, error) -> {
            T form = null;
            WriterTrustException refused = null;
            CloudFault fault = null;
            if (error != null) {
              Throwable cause = Futures.unwrap(error);
              if (Futures.isCancellation(cause)) {
                return;
              }
              if (!(cause instanceof CloudException ce
                  && ce.kind() == CloudException.Kind.NOT_FOUND)) {
                fault =
                    new CloudFault(c.id(), CloudFault.Kind.ERROR, what + ": " + cause.getMessage());
              }
            } else if (bytes.length > maxBytes) {
              refused =
                  new WriterTrustException(
                      Reason.MALFORMED, null, what + " on " + c.id() + " is over " + maxBytes);
            } else {
              try {
                form = parse.parse(bytes);
              } catch (WriterTrustException e) {
                refused = e;
              }
            }
            if (refused != null) {
              ctx.observer.writerRejected(null, refused);
              if (refused.writerId() != null) {
                refusals.putIfAbsent(refused.writerId(), refused);
              }
            }
            boolean done;
            boolean failed;
            List<T> copy = null;
            synchronized (counts) {
              if (result.isDone()) {
                return;
              }
              if (fault != null) {
                faults.add(fault);
                counts[1]++;
              } else {
                counts[0]++;
                if (form != null) {
                  found.add(form);
                }
              }
              done = counts[0] >= quorum;
              failed = counts[1] > n - quorum;
              if (done) {
                copy = List.copyOf(found);
              }
            }
            if (fault != null) {
              ctx.report(null, fault);
            }
            if (done) {
              result.complete(copy);
            } else if (failed) {
              result.completeExceptionally(
                  new QuorumException("reading the " + what, quorum, counts[0], faults));
            }
          },
          ctx.settings.executor());
    }
    Futures.onEnd(result, (r, e) -> inflight.forEach(f -> f.cancel(true)));
    return result;
  }

  /**
   * Puts {@code bytes} as {@code name} on every cloud and completes once n - f acknowledged (the
   * rest go on; repair or the next publication brings a lagging cloud up to date); fails once more
   * than f failed.
   */
  public CompletableFuture<Void> publish(String what, ObjectKey name, byte[] bytes) {
    return publish(ctx, what, name, bytes);
  }

  /** {@link #publish} on {@code ctx}'s clouds. */
  public static CompletableFuture<Void> publish(
      Context ctx, String what, ObjectKey name, byte[] bytes) {
    int n = ctx.clouds.size();
    int quorum = ctx.settings.quorum();
    CompletableFuture<Void> result = new CompletableFuture<>();
    List<CloudFault> faults = new ArrayList<>();
    int[] counts = new int[2];
    for (Cloud c : ctx.clouds) {
      CompletableFuture<Void> put = c.driver().put(name, bytes.clone());
      ctx.linger(put);
      Futures.onEnd(
          put,
          (v, error) -> {
            boolean done;
            boolean failed;
            synchronized (counts) {
              if (error != null) {
                faults.add(
                    new CloudFault(
                        c.id(),
                        CloudFault.Kind.ERROR,
                        what + ": " + Futures.unwrap(error).getMessage()));
                counts[1]++;
              } else {
                counts[0]++;
              }
              done = counts[0] == quorum;
              failed = counts[1] == n - quorum + 1;
            }
            if (done) {
              result.complete(null);
            } else if (failed) {
              result.completeExceptionally(
                  new QuorumException("publishing the " + what, quorum, counts[0], faults));
            }
          });
    }
    return result;
  }

  /** The refresh interval (for messages). */
  public Duration refresh() {
    return Duration.ofNanos(refreshNanos);
  }
}
