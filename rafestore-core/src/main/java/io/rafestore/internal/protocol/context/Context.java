package io.rafestore.internal.protocol.context;

import io.rafestore.CloudFault;
import io.rafestore.internal.observe.Observer;
import io.rafestore.internal.protocol.config.Settings;
import io.rafestore.internal.protocol.metadata.MetadataCodec;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import io.rafestore.internal.protocol.metadata.View;
import io.rafestore.internal.protocol.selection.LatencyModel;
import io.rafestore.internal.protocol.selection.LayoutChooser;
import io.rafestore.internal.protocol.selection.PriceBook;
import io.rafestore.spi.support.Futures;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/** Everything an operation needs: settings, clouds, the latency model, the codec, caches. */
public final class Context implements LayoutChooser.Timing {
  public final Settings settings;
  public final List<Cloud> clouds;
  public final Map<String, Cloud> byId;
  final List<String> dataCloudIds;
  public final LatencyModel model;
  public final MetadataCodec codec;

  /**
   * Signs this client's logs, several in one signature when they wait for it ({@link
   * io.rafestore.internal.protocol.metadata.BatchSigner}); null for a client that cannot write.
   */
  public final io.rafestore.internal.protocol.metadata.BatchSigner signer;

  /**
   * The clouds' prices, for the layout chooser: {@code Builder.pricing} per cloud, else {@link
   * io.rafestore.Pricing#DEFAULT}.
   */
  public final PriceBook prices;

  /** Where operations report phases, faults and requests (listener, JFR, log). */
  public final Observer observer;

  /**
   * Clouds that did not answer a maintenance request within its grace the last time (the quorum
   * gather of maintenance reads); cleared by any answer.
   */
  public final java.util.Set<String> lateClouds;

  /**
   * Late clouds whose last late request was left running as a probe ({@code QuorumGather}): at most
   * one per cloud, so a hung cloud holds one request, and a slow but correct one clears its mark in
   * {@link #lateClouds} when the probe answers.
   */
  public final java.util.Set<String> lateProbes;

  /**
   * The tenant whose operations this context runs ({@link io.rafestore.RafeStore#forTenant}):
   * {@code "default"} for the client's own context.
   */
  public final String tenant;

  /**
   * The tenants' shared state: their stats, the fair queue of each cloud (when fairness is on). One
   * per client, shared by every context made from its context.
   */
  public final io.rafestore.internal.protocol.fairness.Tenancy tenancy;

  /**
   * The context whose key state this one shares: {@code this}, or for a tenant's view ({@link
   * #forTenant}) the client's context, to which the per-key state (own logs, key tails,
   * incarnation, commit gate, loops, lingering puts) is delegated, so that views never fork a
   * writer's log.
   */
  private final Context root;

  /**
   * This client's incarnation: a random nonzero 64-bit number drawn when the client is built and
   * stamped on every log and entry it signs ({@link io.rafestore.Version#incarnation()}). A writer
   * id restarted after a crash is a new incarnation, so it can never sign a log or a version that
   * its predecessor signed, even when it picks the same sequence and timestamp (it cannot see a log
   * that reached only a few clouds, and it trusts no local disk to remember).
   */
  private volatile long incarnation = newIncarnation();

  /**
   * The incarnation this client signs with now. It changes only when the client forgets the logs it
   * signed ({@link #rememberOwnLog} clearing its bounded memory): from then on it is, for every
   * key, a writer that may not know its own last log, exactly as a restarted one, and signs as a
   * new incarnation so that it can never sign two different logs of one sequence, nor two entries
   * under one (timestamp, incarnation).
   */
  public long incarnation() {
    return root == this ? incarnation : root.incarnation();
  }

  private static final java.security.SecureRandom INCARNATIONS = new java.security.SecureRandom();

  private static long newIncarnation() {
    long v;
    do {
      v = INCARNATIONS.nextLong();
    } while (v == 0);
    return v;
  }

  /**
   * Becomes a new incarnation: after a log this client signed was abandoned unsent (the write-back
   * journal's gate failed, {@link CommitGate}), so that no later log of this client can reuse its
   * sequence or its entry's version. Readers merge incarnations as they do a restarted writer's.
   */
  public void renewIncarnation() {
    if (root != this) {
      root.renewIncarnation();
      return;
    }
    synchronized (this) {
      incarnation = newIncarnation();
    }
  }

  /** Key shares of sealed values this client wrote (confidentiality option). */
  public final ShareMemory shareMemory;

  /** The writers a listing readM fetches together with the listing (a guess, never a decision). */
  public final WriterMemory writers;

  /** At most this many bytes of logs are kept for conditional readM gets (all clouds together). */
  static final long LOG_TAG_BYTES = 32L * 1024 * 1024;

  /** The logs each cloud last sent, with their tags, for conditional readM gets. */
  public final io.rafestore.internal.protocol.metadata.LogTags logTags;

  /** The client's foreground operations in flight, which background work gives way to. */
  public final Foreground foreground;

  /** The read tier: the verified value cache and what readM verified (design.md section 5). */
  public final ReadTier readTier;

  /**
   * The bound on one request of a maintenance pass (half the operation timeout), after which it is
   * failed and cancelled, for when more than f clouds hang. A context whose drivers queue requests
   * ({@link #withDrivers}) bounds them itself, from when each is sent.
   */
  public final java.time.Duration requestLimit;

  /**
   * This writer's own logs as last stored or read, by key: lets {@code FAST} mode skip readM when
   * this client is the only trusted writer. Bounded: cleared when it grows too large.
   */
  private final ConcurrentHashMap<String, MetadataLog> ownLogs = new ConcurrentHashMap<>();

  private static final int OWN_LOG_LIMIT = 100_000;

  /** What writeM waits for between signing and sending ({@link CommitGate}); open by default. */
  private volatile CommitGate commitGate = CommitGate.OPEN;

  public CommitGate commitGate() {
    return root == this ? commitGate : root.commitGate();
  }

  /** Sets the gate (the write-back journal's), once, before the first write. */
  public void commitGate(CommitGate gate) {
    if (root != this) {
      root.commitGate(gate);
      return;
    }
    this.commitGate = java.util.Objects.requireNonNull(gate, "gate");
  }

  /** Tail of the chain of metadata phases per key, so this client's appends never race. */
  private final ConcurrentHashMap<String, CompletableFuture<Void>> keyTails =
      new ConcurrentHashMap<>();

  /**
   * Which writers' logs this client accepts, and under which keys: explicit trust, and certified
   * writers when operator keys are configured (design.md section 4, "Writer certificates").
   */
  public final io.rafestore.internal.protocol.trust.WriterTrust trust;

  /** A context that trusts exactly the explicitly trusted writers. */
  public Context(Settings settings) {
    this(
        settings,
        c -> io.rafestore.internal.protocol.trust.WriterTrust.explicit(settings.trustedWriters()));
  }

  /**
   * A context whose writer trust {@code trust} makes from it (once everything else is set up: it
   * may keep the context to read certificates and revocation lists from the clouds).
   */
  public Context(
      Settings settings,
      java.util.function.Function<Context, io.rafestore.internal.protocol.trust.WriterTrust>
          trust) {
    this.settings = settings;
    this.root = this;
    this.tenant = io.rafestore.CloudRequest.DEFAULT_TENANT;
    this.lateClouds = ConcurrentHashMap.newKeySet();
    this.lateProbes = ConcurrentHashMap.newKeySet();
    this.codec = new MetadataCodec(settings.signatureProvider());
    this.signer =
        settings.writerKeys() == null
            ? null
            : new io.rafestore.internal.protocol.metadata.BatchSigner(
                codec,
                settings.writerKeys().getPrivate(),
                settings.executor(),
                settings.maxMetadataBytes());
    this.observer = new Observer(settings.listener(), settings.scheduler());
    this.model = new LatencyModel(settings.scheduler(), settings.clouds());
    LatencyModel m = this.model;
    this.tenancy =
        new io.rafestore.internal.protocol.fairness.Tenancy(
            settings.fairness(), settings::share, settings.scheduler(), m::waiting);
    // The clouds' prices as the layout chooser reads them: Builder.pricing, else Pricing.DEFAULT.
    java.util.Map<String, io.rafestore.Pricing> pricing = settings.pricing();
    this.prices =
        cloud -> {
          io.rafestore.Pricing p = pricing.getOrDefault(cloud, io.rafestore.Pricing.DEFAULT);
          return new io.rafestore.internal.protocol.selection.PriceBook.Price(
              p.putsPer1000(),
              p.getsPer1000(),
              p.listsPer1000(),
              p.egressPerGB(),
              p.storagePerGBMonth());
        };
    this.shareMemory = new ShareMemory();
    this.writers = new WriterMemory();
    this.logTags = new io.rafestore.internal.protocol.metadata.LogTags(LOG_TAG_BYTES);
    this.foreground = new Foreground();
    this.readTier = new ReadTier(settings, observer);
    this.requestLimit = settings.operationTimeout().dividedBy(2);
    List<Cloud> list = new ArrayList<>();
    Map<String, Cloud> map = new LinkedHashMap<>();
    List<String> data = new ArrayList<>();
    for (Settings.CloudSetting s : settings.clouds()) {
      Cloud c = Cloud.of(s, model, observer, tenancy);
      list.add(c);
      map.put(c.id(), c);
      if (c.role().holdsData()) {
        data.add(c.id());
      }
    }
    this.clouds = List.copyOf(list);
    this.byId = Map.copyOf(map);
    this.dataCloudIds = List.copyOf(data);
    this.trust = trust.apply(this);
  }

  /**
   * A context for background work that shares this one's settings, codec, observer, latency model,
   * key-share memory and foreground count, but calls each cloud through {@code wrap} of its driver
   * (a decorator above the accounting and the measurement, so requests are still counted and
   * measured), bounds each request by {@code requestLimit}, and has its own memory of late clouds
   * and its own loops ({@link #close} of it stops only them).
   */
  public Context withDrivers(
      java.util.function.Function<Cloud, io.rafestore.spi.CloudDriver> wrap,
      java.time.Duration requestLimit) {
    return new Context(this, wrap, requestLimit);
  }

  private Context(
      Context base,
      java.util.function.Function<Cloud, io.rafestore.spi.CloudDriver> wrap,
      java.time.Duration requestLimit) {
    this.settings = base.settings;
    this.root = this;
    this.tenant = base.tenant;
    this.tenancy = base.tenancy;
    this.lateClouds = ConcurrentHashMap.newKeySet();
    this.lateProbes = ConcurrentHashMap.newKeySet();
    this.codec = base.codec;
    this.signer = base.signer;
    this.observer = base.observer;
    this.model = base.model;
    this.prices = base.prices;
    this.shareMemory = base.shareMemory;
    this.writers = base.writers;
    this.logTags = base.logTags;
    this.foreground = base.foreground;
    this.readTier = base.readTier;
    this.trust = base.trust;
    this.requestLimit = requestLimit;
    this.commitGate = base.commitGate();
    List<Cloud> list = new ArrayList<>();
    Map<String, Cloud> map = new LinkedHashMap<>();
    for (Cloud c : base.clouds) {
      Cloud w = new Cloud(c.id(), c.role(), c.raw(), c.accounting(), wrap.apply(c));
      list.add(w);
      map.put(w.id(), w);
    }
    this.clouds = List.copyOf(list);
    this.byId = Map.copyOf(map);
    this.dataCloudIds = base.dataCloudIds;
  }

  /**
   * This context acting for {@code tenant}: the same settings, clouds, caches, memories and per-key
   * state (delegated to the client's context), each cloud's driver the tenant's door ({@link
   * io.rafestore.internal.protocol.fairness.TenantDoor}), which tags the tenant's requests and,
   * with fairness on, queues them fairly.
   */
  public Context forTenant(String tenant) {
    Context base = root;
    if (tenant.equals(base.tenant)) {
      return base;
    }
    Context v = base.views.get(tenant);
    if (v != null) {
      return v;
    }
    return base.views.size() >= MAX_TENANT_VIEWS
        ? new Context(base, tenant)
        : base.views.computeIfAbsent(tenant, t -> new Context(base, t));
  }

  /** Most tenants' contexts kept ({@link #forTenant}); beyond, each call makes a new one. */
  static final int MAX_TENANT_VIEWS = 1024;

  /** The tenants' contexts made from this one (only a root context's is used). */
  private final ConcurrentHashMap<String, Context> views = new ConcurrentHashMap<>();

  private Context(Context base, String tenant) {
    this.settings = base.settings;
    this.root = base;
    this.tenant = tenant;
    this.tenancy = base.tenancy;
    this.lateClouds = base.lateClouds;
    this.lateProbes = base.lateProbes;
    this.codec = base.codec;
    this.signer = base.signer;
    this.observer = base.observer;
    this.model = base.model;
    this.prices = base.prices;
    this.shareMemory = base.shareMemory;
    this.writers = base.writers;
    this.logTags = base.logTags;
    this.foreground = base.foreground;
    this.readTier = base.readTier;
    this.trust = base.trust;
    this.requestLimit = base.requestLimit;
    List<Cloud> list = new ArrayList<>();
    Map<String, Cloud> map = new LinkedHashMap<>();
    for (Cloud c : base.clouds) {
      Cloud w =
          new Cloud(
              c.id(),
              c.role(),
              c.raw(),
              c.accounting(),
              io.rafestore.internal.protocol.fairness.TenantDoor.forTenant(c.driver(), tenant));
      list.add(w);
      map.put(w.id(), w);
    }
    this.clouds = List.copyOf(list);
    this.byId = Map.copyOf(map);
    this.dataCloudIds = base.dataCloudIds;
  }

  /** Data clouds in the order writeDo and writeDf use them for a value of {@code size} bytes. */
  public List<String> dataOrder(long size) {
    return settings.dataOrderAsAdded() ? dataCloudIds : model.fastestFirst(dataCloudIds, size);
  }

  /**
   * Data clouds cheapest first for an object of {@code size} bytes (a put, a month of its storage
   * and one download of it at each cloud's prices), ties by predicted upload time, then
   * configuration order: where the cost objective puts packs of inline values (background work,
   * whose latency does not matter to any caller).
   */
  public List<String> cheapestDataOrder(long size) {
    return io.rafestore.internal.protocol.selection.LogTargets.cheapestFirst(
        dataCloudIds, size, prices, c -> predictUpload(c, size).toNanos(), java.util.Set.of());
  }

  /**
   * Predicted time to upload a value of {@code size} bytes to {@code cloud}: one request for a
   * whole value; for a value in parts, one round trip per batch of {@code partsInFlight} parts plus
   * the transfer at the cloud's bandwidth.
   */
  public java.time.Duration predictUpload(String cloud, long size) {
    return upload(cloud, size, uploadRounds(size));
  }

  /**
   * Predicted time to upload {@code bytes} to {@code cloud} in {@code batches} batches of parts one
   * after another: the transfer at the cloud's bandwidth plus one round trip per batch.
   */
  @Override
  public java.time.Duration upload(String cloud, long bytes, long batches) {
    java.time.Duration one = model.predict(cloud, bytes);
    return batches <= 1 ? one : one.plus(model.predict(cloud, 0).multipliedBy(batches - 1));
  }

  @Override
  public java.time.Duration fetch(String cloud, long bytes) {
    return model.predict(cloud, bytes);
  }

  /**
   * The client's own link as the model sees it: the fastest bandwidth measured to any one cloud (a
   * lower bound of the link, which carried that transfer).
   */
  @Override
  public double linkBytesPerSecond() {
    double best = 0;
    for (Cloud c : clouds) {
      best = Math.max(best, model.bytesPerSecond(c.id()));
    }
    return best;
  }

  /** How many batches of parts an upload of {@code size} bytes takes (1 for a whole value). */
  public long uploadRounds(long size) {
    if (!settings.needsParts(size)) {
      return 1;
    }
    long count = (size + settings.partSize() - 1) / settings.partSize();
    return (count + settings.partsInFlight() - 1) / settings.partsInFlight();
  }

  public int f() {
    return settings.f();
  }

  public MetadataLog ownLog(String key) {
    if (root != this) {
      return root.ownLog(key);
    }
    return ownLogs.get(key);
  }

  /**
   * Records a log this client signed for its key, as soon as it is signed and before its puts
   * start: whether they reach n - f clouds or not (a failed writeM may still have left the log on
   * some), the client's next log of the key extends this one ({@link #ownView}), never a second log
   * of the same sequence with other entries.
   */
  public void rememberOwnLog(MetadataLog log) {
    if (root != this) {
      root.rememberOwnLog(log);
      return;
    }
    synchronized (this) {
      rememberOwn(log);
    }
  }

  private void rememberOwn(MetadataLog log) {
    if (ownLogs.size() >= OWN_LOG_LIMIT && !ownLogs.containsKey(log.key())) {
      // Forgetting the logs it signed would let the client sign another log of a sequence it used
      // (its next readM need not hear a log that reached few clouds): it becomes a new incarnation
      // first, which readers merge with the old one as they do a restarted writer's.
      ownLogs.clear();
      incarnation = newIncarnation();
    }
    ownLogs.merge(log.key(), log, (a, b) -> a.sequence() >= b.sequence() ? a : b);
  }

  /**
   * The view a metadata phase of this client (a write's writeM, a delete's tombstone, a
   * collection's watermark, a pack's rewrite) builds its next log on: readM's {@code view} with
   * this writer's log merged ({@link io.rafestore.internal.protocol.metadata.LogMerge#merge}) with
   * the last log this client signed for {@code key}. Without it, a writeM that failed after its log
   * reached a few clouds would leave a log that the next readM need not hear, and the next log
   * would reuse its sequence and its entry's timestamp for other content: one incarnation signing
   * two different logs of one sequence, and two entries under one version.
   */
  public View ownView(String key, View view) {
    MetadataLog own = ownLog(key);
    String writer = settings.writerId();
    if (own == null || writer == null) {
      return view;
    }
    MetadataLog seen = view.logs.get(writer);
    MetadataLog merged =
        seen == null
            ? own
            : io.rafestore.internal.protocol.metadata.LogMerge.merge(List.of(seen, own));
    return merged == seen ? view : view.withLog(merged);
  }

  /**
   * Joins the per-key queue: the returned future completes when every earlier metadata section of
   * this client for {@code key} has finished; {@code done} must be completed when this one finishes
   * (successfully or not).
   */
  public CompletableFuture<Void> enterKey(String key, CompletableFuture<Void> done) {
    if (root != this) {
      return root.enterKey(key, done);
    }
    CompletableFuture<Void> previous = keyTails.put(key, done);
    Futures.onEnd(done, (r, e) -> keyTails.remove(key, done));
    return previous == null
        ? CompletableFuture.completedFuture(null)
        : previous.handle((r, e) -> null);
  }

  /** Loops still running ({@link Loop}): stopped by {@link #close()}. */
  private final java.util.Set<CompletableFuture<?>> loops = ConcurrentHashMap.newKeySet();

  private volatile boolean closed;

  /**
   * Registers a running loop (a listing walk, a key page, verifyAll) so that {@link #close()} stops
   * it: after close no further request is sent for it. A loop started after close fails at once.
   */
  void track(CompletableFuture<?> loop) {
    if (root != this) {
      root.track(loop);
      return;
    }
    loops.add(loop);
    Futures.onEnd(loop, (r, e) -> loops.remove(loop));
    if (closed) {
      loop.completeExceptionally(closedError());
    }
  }

  /**
   * Clouds that failed a log put or missed writeM's hedge deadline (cost objective), with when: the
   * log plan ({@link #logPlan}) ranks them last for {@link #LOG_DEMOTION}, or until one of their
   * log puts is acknowledged, so a dead cheap cloud costs one hedge wait per period, not per write.
   */
  private final ConcurrentHashMap<String, Long> logDemoted = new ConcurrentHashMap<>();

  /** How long a cloud that failed or was late with a log stays ranked last ({@link #logPlan}). */
  public static final java.time.Duration LOG_DEMOTION = java.time.Duration.ofSeconds(60);

  /**
   * Where writeM sends a signed log of {@code bytes} ({@link
   * io.rafestore.internal.protocol.selection.LogTargets}): every cloud at once under the latency
   * objective and in the DepSky baselines; otherwise, when the objective prefers it, the n - f
   * cheapest first and the others as spares.
   */
  public io.rafestore.internal.protocol.selection.LogTargets.Plan logPlan(long bytes) {
    List<String> ids = new ArrayList<>(clouds.size());
    for (Cloud c : clouds) {
      ids.add(c.id());
    }
    if (!logsMayLag()) {
      return new io.rafestore.internal.protocol.selection.LogTargets.Plan(
          ids, List.of(), java.time.Duration.ZERO);
    }
    return io.rafestore.internal.protocol.selection.LogTargets.plan(
        ids, f(), bytes, settings.objective(), queuedTiming, prices, demotedLogClouds());
  }

  /**
   * The latency model's predictions behind what this client already has in flight to each cloud
   * ({@link LatencyModel#predictQueued}): the log plan's ties and its hedge deadline, so that a
   * busy client (many writes in flight) does not start spares for puts that are merely queued.
   */
  private final LayoutChooser.Timing queuedTiming =
      new LayoutChooser.Timing() {
        @Override
        public java.time.Duration upload(String cloud, long bytes, long batches) {
          return model.predictQueued(cloud, bytes);
        }

        @Override
        public java.time.Duration fetch(String cloud, long bytes) {
          return model.predictQueued(cloud, bytes);
        }

        @Override
        public double linkBytesPerSecond() {
          return Context.this.linkBytesPerSecond();
        }
      };

  /**
   * Whether this client's writeM may leave clouds without its newest log by design: an objective
   * other than latency, outside the DepSky baselines ({@link #logPlan}). Verify then reports such
   * clouds as lagging, not as faults, while n - f hold the newest log.
   */
  public boolean logsMayLag() {
    io.rafestore.ProtocolMode mode = settings.mode();
    return !settings.objective().isLatency()
        && mode != io.rafestore.ProtocolMode.DEPSKY_A
        && mode != io.rafestore.ProtocolMode.DEPSKY_CA;
  }

  private java.util.Set<String> demotedLogClouds() {
    if (root != this) {
      return root.demotedLogClouds();
    }
    if (logDemoted.isEmpty()) {
      return java.util.Set.of();
    }
    long now = settings.scheduler().nanoTime();
    java.util.Set<String> out = new java.util.HashSet<>();
    logDemoted.forEach(
        (c, at) -> {
          if (now - at < LOG_DEMOTION.toNanos()) {
            out.add(c);
          } else {
            logDemoted.remove(c, at);
          }
        });
    return out;
  }

  /** {@code cloud} failed a log put or missed writeM's hedge deadline: rank it last a while. */
  public void demoteLogCloud(String cloud) {
    if (root != this) {
      root.demoteLogCloud(cloud);
      return;
    }
    logDemoted.put(cloud, settings.scheduler().nanoTime());
  }

  /** {@code cloud} acknowledged a log put: it is ranked by price again. */
  public void logCloudAnswered(String cloud) {
    if (root != this) {
      root.logCloudAnswered(cloud);
      return;
    }
    if (!logDemoted.isEmpty()) {
      logDemoted.remove(cloud);
    }
  }

  /** Puts left running after their quorum (writeM's surplus): awaited by {@link #drain}. */
  private final java.util.Set<CompletableFuture<?>> lingering = ConcurrentHashMap.newKeySet();

  /**
   * Registers a put that goes on after its phase's quorum, so that {@link #drain} can wait for it;
   * it leaves the set when it completes.
   */
  public void linger(CompletableFuture<?> put) {
    if (root != this) {
      root.linger(put);
      return;
    }
    if (put.isDone()) {
      return;
    }
    lingering.add(put);
    Futures.onEnd(put, (r, e) -> lingering.remove(put));
  }

  /**
   * Waits up to {@code grace} (real time) for the puts registered by {@link #linger} to complete.
   * Returns early if the thread is interrupted (the flag restored).
   */
  public void drain(java.time.Duration grace) {
    if (root != this) {
      root.drain(grace);
      return;
    }
    if (grace.isZero() || lingering.isEmpty()) {
      return;
    }
    CompletableFuture<Void> all =
        CompletableFuture.allOf(lingering.toArray(CompletableFuture<?>[]::new));
    try {
      all.get(grace.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException
        | java.util.concurrent.TimeoutException
        | java.util.concurrent.CancellationException e) {
      // A failed put is that cloud's fault, already reported; one past the grace is cancelled by
      // the driver's close or its linger timer, and repair brings the cloud up to date.
    }
  }

  /** Stops every loop still running: they fail with "client closed" and start no new request. */
  public void close() {
    if (root != this) {
      // A tenant's view: the client's context is closed by the client.
      return;
    }
    closed = true;
    for (CompletableFuture<?> loop : List.copyOf(loops)) {
      loop.completeExceptionally(closedError());
    }
  }

  private static io.rafestore.RafeStoreException closedError() {
    return new io.rafestore.RafeStoreException("stopped: this RafeStore client was closed");
  }

  public void report(String key, CloudFault fault) {
    observer.fault(key, fault);
  }

  public void reportAll(String key, List<CloudFault> faults) {
    for (CloudFault f : faults) {
      report(key, f);
    }
  }
}
