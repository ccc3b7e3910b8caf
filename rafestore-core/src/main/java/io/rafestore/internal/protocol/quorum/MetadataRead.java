package io.rafestore.internal.protocol.quorum;

import io.rafestore.CloudFault;
import io.rafestore.QuorumException;
import io.rafestore.WriterTrustException;
import io.rafestore.internal.protocol.config.Settings;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.LogMerge;
import io.rafestore.internal.protocol.metadata.MalformedMetadataException;
import io.rafestore.internal.protocol.metadata.MetadataCodec;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import io.rafestore.internal.protocol.metadata.View;
import io.rafestore.internal.protocol.trust.Verdict;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import io.rafestore.spi.support.Futures;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Phase readM: fetch every trusted writer's log for a key from all n clouds and complete with the
 * merged {@link View} as soon as n - f clouds gave valid replies. Which writers are trusted, and
 * under which keys, is the context's {@link io.rafestore.internal.protocol.trust.WriterTrust}'s
 * answer (explicit trust, and certified writers when operator keys are configured): readM starts
 * once it knows the writers the trust knows now ({@code known()}), and a writer a listing names
 * that it does not know is checked ({@code check(w)}: for a certified writer, its certificate read
 * from a quorum) before its log is fetched. A certified writer's log whose newest entry was created
 * after its certificate ended is ignored, reported to the listener, not counted against the cloud.
 *
 * <p>How a cloud is asked for the logs ({@link Settings#listsWriters}): either one GET per trusted
 * writer ({@link io.rafestore.WriterDiscovery#PER_WRITER}), or a listing of the key's log prefix
 * {@code m/<key>/} and one GET of each trusted writer it names ({@link
 * io.rafestore.WriterDiscovery#LISTING}), the writers this client expects ({@link
 * io.rafestore.internal.protocol.context.WriterMemory}) fetched together with the listing so that
 * the common case stays one round trip. Either way a cloud's reply is the set of logs it gave for
 * the key, and "not found" for every other trusted writer.
 *
 * <p>A cloud's reply is valid when every one of its per-writer answers is either a log that parses,
 * names the right key and writer and verifies under the writer's key, or "not found" (and, when
 * listing, its listing pages came back). A failed or invalid answer makes the whole cloud's reply
 * invalid: it never counts toward the quorum. If more than f clouds are invalid the phase fails
 * with {@link QuorumException}. Requests still out when the quorum is reached are useless and are
 * cancelled.
 *
 * <p>Why n - f suffices: a write completed only after its log reached n - f clouds, so any n - f
 * replies share at least n - 2f >= f + 1 clouds with it, one of them correct; that correct cloud
 * returns the log (or a newer one), and the highest sequence wins the merge. When listing, the
 * correct cloud lists every log it holds (a listing is as strongly consistent as a GET on the
 * supported stores), so it is asked for the writer's log. A faulty cloud that hides a writer from
 * its listing gives what it could give by answering "not found"; one that lists invented writers
 * costs one GET on itself per invented name that this client trusts, never more than {@link
 * #MAX_LISTED_WRITERS} and never a request to another cloud, and names it cannot verify are never
 * fetched. With operator keys, a listed writer id the trust holds no verdict on costs one
 * certificate read (one GET per cloud) for at most {@link #CHECKS_PER_CLOUD} ids per listing cloud
 * per read; the cloud's other such ids wait for a reading of the trust data begun after its listing
 * arrived (forced at most once per {@link
 * io.rafestore.internal.protocol.trust.WriterTrust#FORCED_REFRESH_GAP}), which knows every writer
 * certified before it (design.md section 5, "readM with many writers").
 *
 * <p>A caller may also be told of each valid reply that arrives before the quorum ({@link
 * EarlyReply}): a read anticipates its data fetch on the first that names a version it can use.
 * Such a reply is one cloud's, possibly a faulty cloud's stale, replayed or withheld (but validly
 * signed) log; it decides nothing, and only {@link #run}'s view does.
 */
public final class MetadataRead {
  /** Names per listing page: S3's largest page. */
  static final int PAGE = 1000;

  /**
   * Listing pages per cloud per read. A cloud whose listing goes on past them (more than {@code
   * PAGE x MAX_PAGES} objects under one key's log prefix: a faulty cloud inventing names, or a key
   * with that many writers' logs) is asked instead for every trusted writer after the last name
   * listed, one GET each, as in {@link io.rafestore.WriterDiscovery#PER_WRITER}.
   */
  static final int MAX_PAGES = 4;

  /**
   * Most writers' logs one cloud's listing may have a read fetch; a listing that names more makes
   * that cloud's reply invalid. The limit of trusted writers, so explicitly trusted writers never
   * reach it; a trust that cannot be enumerated (writer certificates) is bounded by it.
   */
  static final int MAX_LISTED_WRITERS = 1024;

  /**
   * Most writers a cloud's listing may have checked one by one per read ({@code trust.check}: for a
   * certified writer, one certificate read, a GET on every cloud) when the trust knows nothing of
   * them yet: names the trust neither knows nor has refused. The other unknown names that cloud
   * lists wait for a reading of the trust data begun after its listing arrived ({@code
   * trust.knownAfter}), which knows every writer certified before; those it does not know are
   * skipped. So a faulty cloud listing invented names costs at most this many certificate reads per
   * read, and a writer whose completed write one cloud lists is never skipped (design.md section 5,
   * "readM with many writers").
   */
  public static final int CHECKS_PER_CLOUD = 8;

  /**
   * Most writers named by the first listing page to arrive whose logs are then fetched at once from
   * every other cloud too, before that cloud's own listing arrives: one round trip for a key this
   * client did not expect writers of. A faulty cloud that answers first with invented names thus
   * costs at most this many GETs on each other cloud per read.
   */
  public static final int ANTICIPATED = 8;

  private final Context ctx;
  private final String key;
  private final List<CloudReply> clouds = new ArrayList<>();
  private final java.util.concurrent.atomic.AtomicBoolean firstListing =
      new java.util.concurrent.atomic.AtomicBoolean();
  private final boolean listing;

  /** The trust's verdicts this read holds: the known writers at start, then each one checked. */
  private final Map<String, Verdict> verdicts = new ConcurrentHashMap<>();

  /** Checks of listed writers the trust did not know at start: one per writer per read. */
  private final Map<String, CompletableFuture<Verdict>> checks = new ConcurrentHashMap<>();

  /** Writers whose logs were refused under their certificates (reported once per readM). */
  private final Set<String> refused = ConcurrentHashMap.newKeySet();

  private final CompletableFuture<View> result = Futures.newFuture();
  private final List<CompletableFuture<?>> inflight = new ArrayList<>();
  private final List<CloudFault> faults = new ArrayList<>();

  /** Valid replies: cloud id to (writer to log); a missing writer means "not found". */
  private final Map<String, Map<String, MetadataLog>> replies = new HashMap<>();

  /** Key shares the valid replies carried: cloud id to writer to timestamp to share (unchecked). */
  private final Map<String, Map<String, Map<LogEntry.Id, byte[]>>> shares = new HashMap<>();

  private int invalid;
  private boolean finished;
  private final EarlyReply early;

  /**
   * For a collection ({@link #runForCollection}): after the quorum, wait for the other clouds'
   * replies as long again as the quorum took (at least {@link #MIN_PATIENCE}), so that a version
   * held by n - f clouds is seen n - f times ({@link View#underQuorum}) even when a cloud without
   * it answered first.
   */
  private final boolean patient;

  private long startedNanos;
  private boolean patienceArmed;
  private boolean patienceOver;

  /** The least a patient readM waits for the other replies after its quorum. */
  static final java.time.Duration MIN_PATIENCE = java.time.Duration.ofMillis(50);

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

  private MetadataRead(Context ctx, String key, EarlyReply early, boolean patient) {
    this.ctx = ctx;
    this.key = key;
    this.listing = ctx.settings.listsWriters();
    this.early = early;
    this.patient = patient;
  }

  /**
   * readM for a collection: as {@link #run(Context, String)}, but after the quorum it waits a
   * bounded time for the other clouds too (as long again as the quorum took, at least {@link
   * #MIN_PATIENCE}), so that the view's {@link View#underQuorum} counts holders among all replies
   * that came: a version written to n - f clouds is then held by a quorum of the replies even if a
   * cloud without it (the one the cost objective skips, or a lagging one) answered first.
   */
  public static CompletableFuture<View> runForCollection(Context ctx, String key) {
    return run(new MetadataRead(ctx, key, null, true));
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
    return run(new MetadataRead(ctx, key, early, false));
  }

  private static CompletableFuture<View> run(MetadataRead r) {
    Context ctx = r.ctx;
    r.startedNanos = ctx.settings.scheduler().nanoTime();
    // The writers this client trusts now (complete at once with explicit trust alone, or while the
    // certified writers and revocation lists are fresh).
    Futures.onEnd(
        ctx.trust.known(),
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
    verdicts.putAll(known);
    Futures.onEnd(result, (v, e) -> cancelInflight());
    List<String> first;
    if (listing) {
      first = new ArrayList<>();
      for (String w : ctx.writers.guesses(key, ctx.settings.writerId())) {
        if (trusted(w)) {
          first.add(w);
        }
      }
    } else {
      first = List.copyOf(known.keySet());
    }
    for (Cloud cloud : ctx.clouds) {
      clouds.add(new CloudReply(cloud));
    }
    for (CloudReply r : clouds) {
      r.start(first);
    }
  }

  /** Whether this read holds a verdict that trusts {@code writer}. */
  private boolean trusted(String writer) {
    Verdict v = verdicts.get(writer);
    return v != null && v.trusted();
  }

  /**
   * The trust's verdict on {@code writer}, a listing named and this read does not know: one check
   * per writer per read, however many clouds list it.
   */
  private CompletableFuture<Verdict> check(String writer) {
    return checks.computeIfAbsent(
        writer,
        w -> {
          CompletableFuture<Verdict> c;
          try {
            c = ctx.trust.check(w);
          } catch (RuntimeException e) {
            c = CompletableFuture.failedFuture(e);
          }
          return c.thenApply(
              v -> {
                verdicts.putIfAbsent(w, v);
                return verdicts.get(w);
              });
        });
  }

  /** Fails readM with {@code cause} (the trust data could not be read), unless it is over. */
  private void abort(Throwable cause) {
    synchronized (this) {
      if (finished) {
        return;
      }
      finished = true;
    }
    result.completeExceptionally(cause);
  }

  /** Sends {@code request} unless readM is over, tracking it for cancellation; null if not sent. */
  private <T> CompletableFuture<T> send(Supplier<CompletableFuture<T>> request) {
    synchronized (this) {
      if (finished) {
        return null;
      }
    }
    CompletableFuture<T> f;
    try {
      f = request.get();
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    boolean late;
    synchronized (this) {
      late = finished;
      if (!late) {
        inflight.add(f);
      }
    }
    if (late) {
      f.cancel(true);
    }
    return f;
  }

  private void cancelInflight() {
    List<CompletableFuture<?>> copy;
    synchronized (this) {
      copy = new ArrayList<>(inflight);
      inflight.clear();
    }
    for (CompletableFuture<?> f : copy) {
      f.cancel(true);
    }
  }

  /**
   * Collects one cloud's answers: per-writer GETs, and when listing, the listing pages and the GETs
   * of the writers they name. The reply is complete when no request of it is out and the listing
   * (if any) has ended; every request, and the start itself, holds one count of {@code pending}
   * until its handler has sent what it leads to, so a driver that answers at once cannot complete
   * the reply early.
   */
  private final class CloudReply {
    private final Cloud cloud;
    private final String cloudId;
    private final String prefix;
    private final Optional<ByteRange> bound =
        Optional.of(ByteRange.of(0, ctx.settings.maxMetadataBytes() + 1L));
    private int pending = 1;
    private int pages;
    private final Set<String> asked = new HashSet<>();
    private final Set<String> checking = new HashSet<>();

    /**
     * Unknown names this cloud listed past its {@link #CHECKS_PER_CLOUD}: waiting for the trust.
     */
    private final Set<String> parked = new HashSet<>();

    /** Checks this cloud's listing started ({@link #CHECKS_PER_CLOUD} at most). */
    private int checksStarted;

    private final Map<String, MetadataLog> logs = new HashMap<>();
    private final Map<String, Map<LogEntry.Id, byte[]>> sharesOf = new HashMap<>();
    private CloudFault fault;
    private boolean complete;

    CloudReply(Cloud cloud) {
      this.cloud = cloud;
      this.cloudId = cloud.id();
      this.prefix = Names.METADATA_PREFIX + Names.encodeKey(key) + "/";
    }

    void start(List<String> writers) {
      for (String w : writers) {
        fetch(w);
      }
      if (listing) {
        page("");
      }
      done();
    }

    /**
     * GETs {@code writer}'s log from this cloud because another cloud listed it first, unless this
     * cloud's reply is already complete.
     */
    void anticipate(String writer) {
      synchronized (this) {
        if (complete) {
          return;
        }
        pending++;
      }
      fetch(writer);
      done();
    }

    /** GETs {@code writer}'s log from this cloud, once per read. */
    private void fetch(String writer) {
      synchronized (this) {
        if (!asked.add(writer)) {
          return;
        }
        pending++;
      }
      ObjectKey object = Names.metadataObject(key, writer);
      CompletableFuture<byte[]> get =
          cloud.driver().conditionalGets() && ctx.settings.conditionalLogGets()
              ? conditional(object)
              : send(
                  // A log moves a few KiB, not its bound: counted so in the model's bytes in
                  // flight.
                  () ->
                      io.rafestore.internal.protocol.selection.MeasuredCloud.get(
                          cloud.driver(), object, bound, 0));
      if (get == null) {
        return;
      }
      get.handleAsync(
          (bytes, error) -> {
            answer(writer, bytes, error);
            return null;
          },
          ctx.settings.executor());
    }

    /**
     * GETs {@code object} from this cloud conditionally, ranged to the same {@link #bound} as a
     * plain log GET (so a faulty cloud cannot make the client download more than a log may hold):
     * with the tag of the bytes this cloud last sent for it, if this client remembers them ({@link
     * io.rafestore.internal.protocol.metadata.LogTags}); an "unchanged" answer stands for those
     * bytes, verified again as any answer. An "unchanged" answer to a tag this client did not send
     * is a fault of the cloud. Null if the read already finished.
     *
     * <p>Cancelled with the read, as a plain log GET is: an earlier version let the request of the
     * cloud beyond the quorum run on for up to {@link QuorumPut#METADATA_LINGER} to learn its tag,
     * and on clouds of limited parallelism those requests, no longer needed, held the slots that
     * the client's own writes waited for (InterferenceBench: four 4 MiB writes at once on clouds of
     * 8 requests each did not finish in 5 minutes). The cloud beyond the quorum so answers in full
     * more often; its tag is learned whenever it is among the first n - f.
     */
    private CompletableFuture<byte[]> conditional(ObjectKey object) {
      return send(
          () -> {
            io.rafestore.internal.protocol.metadata.LogTags.Known known =
                ctx.logTags.get(cloudId, object.value());
            Optional<String> tag = known == null ? Optional.empty() : Optional.of(known.tag());
            CompletableFuture<TaggedGet> request =
                io.rafestore.internal.protocol.selection.MeasuredCloud.getTagged(
                    cloud.driver(), object, bound, tag, 0);
            // Cancelling the read's handle cancels the request.
            return Futures.relay(request, answer -> resolve(object, known, answer));
          });
    }

    /** The bytes an answer to a conditional get stands for; remembers a tagged answer. */
    private byte[] resolve(
        ObjectKey object,
        io.rafestore.internal.protocol.metadata.LogTags.Known known,
        TaggedGet answer) {
      if (answer.unchanged()) {
        if (known == null || !answer.tag().orElse("").equals(known.tag())) {
          throw new java.util.concurrent.CompletionException(
              new CloudException(
                  cloudId,
                  CloudException.Kind.OTHER,
                  "answered unchanged to a tag it was not sent, for " + object.value()));
        }
        return known.bytes();
      }
      byte[] data = answer.data();
      if (answer.tag().isPresent() && data.length <= ctx.settings.maxMetadataBytes()) {
        ctx.logTags.remember(cloudId, object.value(), answer.tag().get(), data);
      } else {
        ctx.logTags.forget(cloudId, object.value());
      }
      return data;
    }

    /** Lists the page of the key's logs after {@code startAfter}. */
    private void page(String startAfter) {
      synchronized (this) {
        pending++;
        pages++;
      }
      CompletableFuture<ListPage> list = send(() -> cloud.driver().list(prefix, startAfter, PAGE));
      if (list == null) {
        return;
      }
      list.handleAsync(
          (page, error) -> {
            listed(startAfter, page, error);
            return null;
          },
          ctx.settings.executor());
    }

    /**
     * One listing page: GETs of the trusted writers it names (untrusted names and names that are
     * not a writer's log of this key are skipped: never fetched), then the next page, or after
     * {@link #MAX_PAGES} a GET of every trusted writer after the last name listed.
     */
    private void listed(String startAfter, ListPage page, Throwable error) {
      if (error != null) {
        Throwable cause = Futures.unwrap(error);
        if (Futures.isCancellation(cause)) {
          return;
        }
        failed(new CloudFault(cloudId, CloudFault.Kind.ERROR, "readM list: " + cause.getMessage()));
        done();
        return;
      }
      long arrived = ctx.settings.scheduler().nanoTime();
      List<String> waiting = new ArrayList<>();
      String last = startAfter;
      List<String> named = new ArrayList<>();
      for (ObjectInfo o : page.objects()) {
        String name = o.key().value();
        if (!name.startsWith(prefix) || name.compareTo(startAfter) <= 0) {
          continue;
        }
        if (name.compareTo(last) > 0) {
          last = name;
        }
        String writer = name.substring(prefix.length());
        if (!validWriterId(writer)) {
          continue;
        }
        if (!verdicts.containsKey(writer)) {
          if (!ctx.trust.certifies()) {
            // Explicit trust knows every writer it trusts: not one, never fetched.
            continue;
          }
          Verdict held = ctx.trust.held(writer);
          if (held != null) {
            // Judged without a read (revoked, or trusted by a check since this read began).
            verdicts.putIfAbsent(writer, held);
          } else {
            // Not known to the trust (a writer certified since its last refresh, or a name invented
            // by this cloud): its verdict first, its log only if trusted. Up to CHECKS_PER_CLOUD
            // names of this cloud are checked one by one; the others wait for the trust read
            // again after this listing arrived. Every such name counts toward the cloud's
            // MAX_LISTED_WRITERS.
            boolean over;
            boolean check = false;
            synchronized (this) {
              boolean counted = checking.contains(writer) || parked.contains(writer);
              over =
                  !counted && asked.size() + checking.size() + parked.size() >= MAX_LISTED_WRITERS;
              if (!over && !counted) {
                if (checks.containsKey(writer)) {
                  // Another cloud's listing is having it checked: no cost to this one.
                  check = true;
                } else if (checksStarted < CHECKS_PER_CLOUD) {
                  checksStarted++;
                  check = true;
                }
                if (check) {
                  checking.add(writer);
                } else {
                  parked.add(writer);
                  waiting.add(writer);
                }
              }
            }
            if (over) {
              failed(
                  new CloudFault(
                      cloudId,
                      CloudFault.Kind.MALFORMED_METADATA,
                      "readM list: names over "
                          + MAX_LISTED_WRITERS
                          + " writers' logs of the key"));
              done();
              return;
            }
            if (check) {
              checkThenFetch(writer);
            }
            continue;
          }
        }
        if (!trusted(writer)) {
          continue;
        }
        boolean over;
        boolean fresh;
        synchronized (this) {
          fresh = !asked.contains(writer);
          over = fresh && asked.size() >= MAX_LISTED_WRITERS;
        }
        if (over) {
          failed(
              new CloudFault(
                  cloudId,
                  CloudFault.Kind.MALFORMED_METADATA,
                  "readM list: names over " + MAX_LISTED_WRITERS + " writers' logs of the key"));
          done();
          return;
        }
        if (fresh && named.size() < ANTICIPATED) {
          named.add(writer);
        }
        fetch(writer);
      }
      if (startAfter.isEmpty() && !named.isEmpty() && firstListing.compareAndSet(false, true)) {
        // The first listing to name writers not expected: they are likely the key's; ask the other
        // clouds for them now rather than after their own listings (a bounded guess, once per
        // read, never a decision).
        for (CloudReply other : clouds) {
          if (other != this) {
            for (String w : named) {
              other.anticipate(w);
            }
          }
        }
      }
      if (!waiting.isEmpty()) {
        awaitTrust(List.copyOf(waiting), arrived);
      }
      if (page.more() && last.compareTo(startAfter) > 0) {
        int sent;
        synchronized (this) {
          sent = pages;
        }
        if (sent < MAX_PAGES) {
          page(last);
        } else {
          // Too long a listing: the rest of the writers the trust knows, one GET each, bounded by
          // them.
          for (String w : List.copyOf(verdicts.keySet())) {
            if (!trusted(w)) {
              continue;
            }
            if ((prefix + w).compareTo(last) > 0) {
              fetch(w);
            }
          }
        }
      }
      done();
    }

    /**
     * Fetches from this cloud the logs of those of {@code writers} (listed by it past its {@link
     * #CHECKS_PER_CLOUD}) that a reading of the trust data begun at or after {@code listedAt}
     * trusts: a writer certified before this cloud listed it is in that reading; the others are
     * skipped. A failed reading (the trust data unreadable) fails readM.
     */
    private void awaitTrust(List<String> writers, long listedAt) {
      synchronized (this) {
        pending++;
      }
      CompletableFuture<Map<String, Verdict>> known;
      try {
        known = ctx.trust.knownAfter(listedAt);
      } catch (RuntimeException e) {
        known = CompletableFuture.failedFuture(e);
      }
      Futures.onEnd(
          known,
          (k, error) -> {
            if (error != null) {
              Throwable cause = Futures.unwrap(error);
              if (!Futures.isCancellation(cause)) {
                abort(cause);
              }
            } else {
              for (String w : writers) {
                Verdict v = k.get(w);
                synchronized (this) {
                  parked.remove(w);
                }
                if (v != null && v.trusted()) {
                  verdicts.putIfAbsent(w, v);
                  if (trusted(w)) {
                    fetch(w);
                  }
                }
              }
            }
            done();
          });
    }

    /**
     * Checks {@code writer} with the trust, then fetches its log from this cloud if it is trusted;
     * a failed check (the trust data unreadable: more than f clouds failed) fails readM.
     */
    private void checkThenFetch(String writer) {
      synchronized (this) {
        pending++;
      }
      Futures.onEnd(
          check(writer),
          (v, error) -> {
            if (error != null) {
              Throwable cause = Futures.unwrap(error);
              if (!Futures.isCancellation(cause)) {
                abort(cause);
              }
            } else if (v.trusted()) {
              // Counted once: by asked from now on.
              synchronized (this) {
                checking.remove(writer);
              }
              fetch(writer);
            }
            done();
          });
    }

    private void answer(String writer, byte[] bytes, Throwable error) {
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
      }
      done();
    }

    private synchronized void failed(CloudFault f) {
      if (fault == null) {
        fault = f;
      }
    }

    /** One request (or the start) has been handled; the last completes the reply. */
    private void done() {
      CloudFault f;
      Map<String, MetadataLog> copy;
      Map<String, Map<LogEntry.Id, byte[]>> sharesCopy;
      synchronized (this) {
        if (--pending > 0) {
          return;
        }
        complete = true;
        f = fault;
        copy = Map.copyOf(logs);
        sharesCopy = Map.copyOf(sharesOf);
      }
      MetadataRead.this.cloudDone(cloudId, copy, sharesCopy, f);
    }
  }

  /** Whether a listed name's last segment can be a writer id ({@link Names#checkWriterId}). */
  private static boolean validWriterId(String s) {
    try {
      Names.checkWriterId(s);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
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
    boolean arm = false;
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
        } else if (settled()) {
          view = merge();
          stale = view.faults.subList(faults.size(), view.faults.size());
          finished = true;
        }
      } else {
        replies.put(cloudId, logs);
        if (!cloudShares.isEmpty()) {
          shares.put(cloudId, cloudShares);
        }
        if (settled()) {
          view = merge();
          stale = view.faults.subList(faults.size(), view.faults.size());
          finished = true;
        } else if (replies.size() >= ctx.settings.quorum()) {
          arm = !patienceArmed;
          patienceArmed = true;
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
    if (arm) {
      long took = ctx.settings.scheduler().nanoTime() - startedNanos;
      java.time.Duration wait = java.time.Duration.ofNanos(Math.max(took, MIN_PATIENCE.toNanos()));
      ctx.settings.scheduler().schedule(wait, this::patienceOver);
    }
    if (failure != null) {
      result.completeExceptionally(failure);
    } else if (view != null) {
      complete(view, stale);
    }
  }

  /**
   * Whether the replies so far make the view: a quorum, and for a patient readM also every cloud
   * answered or its patience over.
   */
  private boolean settled() {
    return replies.size() >= ctx.settings.quorum()
        && (!patient || patienceOver || replies.size() + invalid >= ctx.settings.n());
  }

  /** A patient readM's wait for the other replies ended: the view is the replies so far. */
  private void patienceOver() {
    View view;
    List<CloudFault> stale;
    synchronized (this) {
      patienceOver = true;
      if (finished || !settled()) {
        return;
      }
      view = merge();
      stale = view.faults.subList(faults.size(), view.faults.size());
      finished = true;
    }
    complete(view, stale);
  }

  private void complete(View view, List<CloudFault> stale) {
    ctx.reportAll(key, stale);
    if (listing) {
      learn(view);
    }
    result.complete(view);
  }

  /**
   * Remembers the writers whose logs {@code view} holds, the most recently active (newest entry)
   * first, as the writers the next listing readM of the key fetches at once.
   */
  private void learn(View view) {
    List<MetadataLog> found = new ArrayList<>(view.logs.values());
    found.sort(
        java.util.Comparator.comparingLong(
                (MetadataLog l) ->
                    l.entries().isEmpty() ? 0 : l.entries().get(l.entries().size() - 1).timestamp())
            .reversed()
            .thenComparing(MetadataLog::writer));
    List<String> writers = new ArrayList<>(found.size());
    for (MetadataLog l : found) {
      writers.add(l.writer());
    }
    ctx.writers.learned(key, writers);
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
    // Counted only for a collection, which alone uses it: not on every read's path.
    return new View(
        key, merged, all, false, shares, shadowed, patient ? underQuorum() : java.util.Set.of());
  }

  /**
   * Versions of value entries that fewer than a quorum of the valid replies held (in their log of
   * the entry's writer): see {@link View#underQuorum}.
   */
  private java.util.Set<io.rafestore.Version> underQuorum() {
    Map<io.rafestore.Version, Integer> held = new HashMap<>();
    for (Map<String, MetadataLog> reply : replies.values()) {
      for (MetadataLog log : reply.values()) {
        for (LogEntry e : log.entries()) {
          if (e.kind() == LogEntry.Kind.VALUE) {
            held.merge(e.version(log.writer()), 1, Integer::sum);
          }
        }
      }
    }
    java.util.Set<io.rafestore.Version> under = new java.util.HashSet<>();
    held.forEach(
        (v, count) -> {
          if (count < ctx.settings.quorum()) {
            under.add(v);
          }
        });
    return under;
  }
}
