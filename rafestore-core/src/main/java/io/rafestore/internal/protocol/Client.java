package io.rafestore.internal.protocol;

import io.rafestore.BlockingRafeStore;
import io.rafestore.CloudStats;
import io.rafestore.CollectionReport;
import io.rafestore.ConditionOne;
import io.rafestore.HistoryPage;
import io.rafestore.OperationReceipt.Kind;
import io.rafestore.OrphanReport;
import io.rafestore.Phase;
import io.rafestore.ProbeOptions;
import io.rafestore.ProbeReport;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.RafeStoreException;
import io.rafestore.RepairReport;
import io.rafestore.RetentionPolicy;
import io.rafestore.RevocationList;
import io.rafestore.Scheduler;
import io.rafestore.StoredValue;
import io.rafestore.VerifyReport;
import io.rafestore.Version;
import io.rafestore.VersionInfo;
import io.rafestore.WriteReceipt;
import io.rafestore.WriterCertificate;
import io.rafestore.WriterTrustException;
import io.rafestore.internal.observe.OpTrace;
import io.rafestore.internal.protocol.config.Settings;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.context.Loop;
import io.rafestore.internal.protocol.layout.InlinePayload;
import io.rafestore.internal.protocol.layout.PartedPayload;
import io.rafestore.internal.protocol.layout.Payload;
import io.rafestore.internal.protocol.maintenance.Listings;
import io.rafestore.internal.protocol.maintenance.Maintenance;
import io.rafestore.internal.protocol.maintenance.Probe;
import io.rafestore.internal.protocol.maintenance.Verifier;
import io.rafestore.internal.protocol.metadata.View;
import io.rafestore.internal.protocol.quorum.MetadataRead;
import io.rafestore.internal.protocol.read.Prefetcher;
import io.rafestore.internal.protocol.read.ReadOp;
import io.rafestore.internal.protocol.write.DeleteOp;
import io.rafestore.internal.protocol.write.DepSkyWriteOp;
import io.rafestore.internal.protocol.write.GroupCommit;
import io.rafestore.internal.protocol.write.InlineWriteOp;
import io.rafestore.internal.protocol.write.Packer;
import io.rafestore.internal.protocol.write.WriteBackQueue;
import io.rafestore.internal.protocol.write.WriteOp;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.support.Futures;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/** The {@link RafeStore} implementation: validates arguments and runs the protocol operations. */
public final class Client implements RafeStore {
  /** The context of this client or view: a view's carries its tenant, all else shared. */
  private final Context ctx;

  /** The client itself: this, or the client a tenant view ({@link #forTenant}) views. */
  private final Client root;

  private final AtomicBoolean closed;
  private final BlockingRafeStore blocking = new Blocking();
  private final Maintenance.OrphanMemory orphans;

  /** The scrubbers made by this client (stopped by close), and their per-cloud counts. */
  private final java.util.Set<io.rafestore.Scrubber> scrubbers;

  private final io.rafestore.internal.protocol.maintenance.Scrub.Totals scrubTotals;

  /** Most tenant views kept ({@link #forTenant}); beyond, views are made afresh each time. */
  static final int MAX_VIEWS = 1024;

  /** The tenant views made so far, by tenant (the root's map, shared by its views). */
  private final java.util.concurrent.ConcurrentHashMap<String, Client> views;

  /**
   * A view of {@code base} acting for {@code tenant}: every field shared with the client, the
   * context a view of the client's ({@link Context#forTenant}).
   */
  private Client(Client base, String tenant) {
    this.root = base;
    this.ctx = base.ctx.forTenant(tenant);
    this.closed = base.closed;
    this.orphans = base.orphans;
    this.scrubbers = base.scrubbers;
    this.scrubTotals = base.scrubTotals;
    this.views = base.views;
    this.writeBack = base.writeBack;
    this.prefetcher = base.prefetcher;
    this.packer = base.packer;
    this.groups = base.groups;
    this.ownCertificate = base.ownCertificate;
  }

  @Override
  public RafeStore forTenant(String tenant) {
    Names.checkTenant(tenant);
    if (tenant.equals(io.rafestore.CloudRequest.DEFAULT_TENANT)) {
      return root;
    }
    Client v = views.get(tenant);
    if (v != null) {
      return v;
    }
    if (views.size() >= MAX_VIEWS) {
      return new Client(root, tenant);
    }
    return views.computeIfAbsent(tenant, t -> new Client(root, t));
  }

  @Override
  public String tenant() {
    return ctx.tenant;
  }

  @Override
  public Map<String, io.rafestore.TenantStats> tenantStats() {
    return ctx.tenancy.stats();
  }

  /** The validated settings (for tests). */
  Settings settings() {
    return ctx.settings;
  }

  /** The protocol context (for tests of this package: its commit gate and incarnation). */
  Context contextForTests() {
    return ctx;
  }

  public Client(Settings settings) {
    this(settings, null);
  }

  /**
   * A client with the write-back journal {@code writeBack} (null for none), opened and replayed
   * here.
   *
   * @throws java.io.UncheckedIOException around the {@link io.rafestore.JournalException} if the
   *     journal cannot be opened or holds a corrupt record
   */
  public Client(Settings settings, io.rafestore.WriteBack writeBack) {
    this.root = this;
    this.closed = new AtomicBoolean();
    this.orphans = new Maintenance.OrphanMemory();
    this.scrubbers = java.util.concurrent.ConcurrentHashMap.newKeySet();
    this.scrubTotals = new io.rafestore.internal.protocol.maintenance.Scrub.Totals();
    this.views = new java.util.concurrent.ConcurrentHashMap<>();
    this.ownCertificate = new java.util.concurrent.atomic.AtomicReference<>();
    try {
      this.ctx =
          new Context(
              settings,
              settings.operators().isEmpty()
                  ? c ->
                      io.rafestore.internal.protocol.trust.WriterTrust.explicit(
                          settings.trustedWriters())
                  : io.rafestore.internal.protocol.quorum.CertifiedTrust::new);
    } catch (IllegalStateException e) {
      // ValueCache.bind refuses a second client.
      throw new IllegalArgumentException("valueCache: " + e.getMessage(), e);
    }
    io.rafestore.internal.journal.Journal journal = null;
    if (writeBack != null) {
      try {
        journal =
            io.rafestore.internal.journal.Journal.open(
                writeBack.directory(), writeBack.maxBytes(), writeBack.maxEntries());
      } catch (io.rafestore.JournalException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    this.packer = new Packer(ctx);
    this.groups = settings.groupCommit() ? new GroupCommit(ctx, packer) : null;
    this.prefetcher = Prefetcher.start(ctx);
    if (journal == null) {
      this.writeBack = null;
      return;
    }
    this.writeBack = new WriteBackQueue(ctx, packer, groups, journal, writeBack);
    ctx.commitGate(this.writeBack);
    try {
      // The crashed predecessor's acknowledged writes go first, before any new write of this one.
      this.writeBack.replay();
    } catch (io.rafestore.JournalException e) {
      this.writeBack.close();
      packer.close();
      prefetcher.close();
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Write-back (the local journal and the background writes), or null without a journal. */
  private final WriteBackQueue writeBack;

  /** The write-back queue, or null without a journal (for tests in this package). */
  WriteBackQueue writeBackQueue() {
    return writeBack;
  }

  @Override
  public CompletableFuture<io.rafestore.JournaledWrite> writeBack(String key, byte[] value) {
    return writeBack(key, value, false);
  }

  /**
   * {@code lead}: the caller blocks until the acknowledgement anyway (the blocking API), so its
   * thread writes and forces the frame itself when none is in flight (leader/follower group commit,
   * {@code Journal.lead}). The asynchronous API never leads: a caller that pipelines writes must
   * not pay an fsync per call, and the journal's writer thread groups them.
   */
  private CompletableFuture<io.rafestore.JournaledWrite> writeBack(
      String key, byte[] value, boolean lead) {
    Names.checkKey(key);
    Objects.requireNonNull(value, "value");
    requireWriter("writeBack");
    if (writeBack == null) {
      throw new IllegalStateException(
          "cannot writeBack: this client has no write-back journal (set Builder.writeBack)");
    }
    checkSize(value);
    checkOpen();
    byte[] copy = value.clone();
    // A certified writer's certificate is on n - f clouds before its first journaled write is
    // acknowledged (once per client), so the background writes never precede it.
    // The read tier caches the value once it is on the clouds (WriteBackQueue.finish, from the
    // copy its upload read back): nothing here keeps the value on the heap until then.
    CompletableFuture<io.rafestore.JournaledWrite> op =
        certified(() -> writeBack.submit(ctx, key, copy, lead));
    return bounded(op, "write-back of '" + key + "'");
  }

  @Override
  public CompletableFuture<Void> flush() {
    checkOpen();
    if (writeBack == null) {
      return CompletableFuture.completedFuture(null);
    }
    return bounded(writeBack.flush(), "flush of the write-back journal");
  }

  /**
   * {@code op} started once this client's write-back writes of {@code key} are on the clouds, so
   * that writes, deletes and collections of a key reach the clouds in call order.
   */
  private <T> CompletableFuture<T> afterWriteBack(
      String key, java.util.function.Supplier<CompletableFuture<T>> op) {
    if (writeBack == null) {
      return op.get();
    }
    CompletableFuture<Void> settled = writeBack.settled(key);
    // Composed: the operation timeout or a cancellation of the returned future reaches op.
    return settled.isDone() ? op.get() : Futures.compose(settled, x -> op.get());
  }

  /**
   * Read-your-writes: {@code read}, a read of the latest version of {@code key}, answered with this
   * client's newest write-back write of the key not yet on the clouds, unless the clouds' version
   * is newer than that write's (signed) version. An unsigned write counts as newer: it will be
   * placed above whatever its readM sees. If the cloud read fails, the journaled write is returned.
   * The journal is looked at before the read starts: a write that lands on the clouds and leaves
   * the queue while the read runs is then either in the read's answer or the one returned (looked
   * at after, a read that started before the write landed and found nothing could miss both).
   */
  private CompletableFuture<StoredValue> readingOwn(
      String key, java.util.function.Supplier<CompletableFuture<StoredValue>> start) {
    if (writeBack == null) {
      return start.get();
    }
    Optional<WriteBackQueue.Pending> pending;
    try {
      pending = writeBack.pending(key);
    } catch (io.rafestore.JournalException e) {
      // The newest own write of the key cannot be read back from the journal: a read that
      // ignored it could answer an older version.
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<StoredValue> read = start.get();
    if (pending.isEmpty()) {
      return read;
    }
    WriteBackQueue.Pending p = pending.get();
    return Futures.relayTranslating(
        read.handle(
            (v, e) -> {
              Optional<Version> signed = p.version();
              if (v != null && signed.isPresent() && v.version().compareTo(signed.get()) > 0) {
                return v;
              }
              long above = v == null ? 0 : v.version().timestamp();
              return p.asStored(key, ctx.incarnation(), above);
            }),
        e -> e);
  }

  /** Fetches ahead of reads into the read tier's cache (nothing without prefetching). */
  private final Prefetcher prefetcher;

  /** This client's prefetcher (for tests of the read package). */
  public Prefetcher prefetcherForTests() {
    return prefetcher;
  }

  /** Packs this writer's older inline values in the background. */
  private final Packer packer;

  /** Rounds of inline writes shared per key (null with {@code groupCommit(false)}). */
  private final GroupCommit groups;

  @Override
  public CompletableFuture<WriteReceipt> write(String key, byte[] value) {
    Names.checkKey(key);
    Objects.requireNonNull(value, "value");
    requireWriter("write");
    checkSize(value);
    checkOpen();
    byte[] copy = value.clone();
    CompletableFuture<WriteReceipt> op = afterWriteBack(key, () -> startWrite(key, copy));
    return bounded(op, "write of '" + key + "'");
  }

  private void checkSize(byte[] value) {
    if (value.length > ctx.settings.maxValueBytes()) {
      throw new IllegalArgumentException(
          "value is "
              + value.length
              + " bytes, over maxValueBytes "
              + ctx.settings.maxValueBytes());
    }
  }

  private CompletableFuture<WriteReceipt> startWrite(String key, byte[] copy) {
    CompletableFuture<WriteReceipt> op =
        certified(
            () ->
                switch (ctx.settings.mode()) {
                  case PAPER, FAST -> {
                    Payload payload = Payload.of(ctx, key, copy, packer);
                    if (!(payload instanceof InlinePayload inline)) {
                      CompletableFuture<WriteReceipt> data = WriteOp.run(ctx, key, payload);
                      Futures.onEnd(
                          data,
                          (r, e) -> {
                            if (e == null) {
                              packer.afterDataWrite(key);
                            }
                          });
                      yield data;
                    }
                    yield groups != null
                        ? groups.write(ctx, key, inline)
                        : InlineWriteOp.run(ctx, packer, key, inline);
                  }
                  case DEPSKY_A, DEPSKY_CA -> DepSkyWriteOp.run(ctx, key, copy);
                });
    if (ctx.readTier.enabled()) {
      // Write-through: the read tier keeps the bytes of this client's own versions, checked
      // against the entry its writeM signed.
      op =
          io.rafestore.spi.support.Futures.relay(
              op,
              r -> {
                ctx.readTier.written(key, r.version(), copy);
                return r;
              });
    }
    return op;
  }

  @Override
  public CompletableFuture<StoredValue> read(String key) {
    Names.checkKey(key);
    checkOpen();
    CompletableFuture<StoredValue> op = readingOwn(key, () -> ReadOp.latest(ctx, key));
    return bounded(op, "read of '" + key + "'");
  }

  @Override
  public CompletableFuture<StoredValue> read(String key, Duration maxStaleness) {
    Names.checkKey(key);
    Settings.checkStaleness(maxStaleness, "read maxStaleness");
    checkOpen();
    CompletableFuture<StoredValue> op =
        readingOwn(key, () -> ReadOp.latest(ctx, key, maxStaleness));
    return bounded(op, "read of '" + key + "'");
  }

  @Override
  public CompletableFuture<StoredValue> read(String key, Version version) {
    Names.checkKey(key);
    Objects.requireNonNull(version, "version");
    checkOpen();
    CompletableFuture<StoredValue> op = ReadOp.version(ctx, key, version);
    return bounded(op, "read of '" + key + "' " + version);
  }

  @Override
  public CompletableFuture<byte[]> read(String key, Version version, long offset, int length) {
    Names.checkKey(key);
    Objects.requireNonNull(version, "version");
    if (offset < 0) {
      throw new IllegalArgumentException("range offset must be >= 0, was " + offset);
    }
    if (length < 0) {
      throw new IllegalArgumentException("range length must be >= 0, was " + length);
    }
    checkOpen();
    CompletableFuture<byte[]> op = ReadOp.range(ctx, key, version, offset, length);
    return bounded(op, "ranged read of '" + key + "' " + version);
  }

  @Override
  public CompletableFuture<ProbeReport> probe(ProbeOptions options) {
    Objects.requireNonNull(options, "options");
    checkOpen();
    return bounded(traced(Kind.PROBE, "", t -> Probe.run(ctx, options)), "probe");
  }

  private WriteReceipt writeStream(String key, InputStream in, long size)
      throws RafeStoreException, IOException {
    Names.checkKey(key);
    Objects.requireNonNull(in, "in");
    if (size < 0) {
      throw new IllegalArgumentException("stream size must be >= 0, was " + size);
    }
    requireWriter("write");
    checkOpen();
    ProtocolMode mode = ctx.settings.mode();
    if (mode == ProtocolMode.DEPSKY_A || mode == ProtocolMode.DEPSKY_CA) {
      throw new UnsupportedOperationException(
          "streaming writes need mode PAPER or FAST; "
              + mode
              + " stores (and codes) each value whole in memory: write a byte[] instead");
    }
    if (!ctx.settings.needsParts(size)) {
      byte[] value = in.readNBytes((int) size);
      if (value.length < size) {
        throw new IllegalArgumentException(
            "stream ended after " + value.length + " bytes but the write declared size " + size);
      }
      if (in.read() != -1) {
        throw new IllegalArgumentException(
            "stream holds more than the declared size of " + size + " bytes");
      }
      return await(write(key, value));
    }
    await(
        bounded(
            certified(() -> CompletableFuture.completedFuture(null)), "write of '" + key + "'"));
    PartedPayload payload = Payload.ofStream(ctx, key, size);
    CompletableFuture<WriteReceipt> op =
        bounded(WriteOp.run(ctx, key, payload), "streaming write of '" + key + "'");
    Futures.onEnd(op, (r, e) -> payload.abort(e == null ? new IllegalStateException("done") : e));
    try {
      payload.produce(in);
    } catch (IOException | RuntimeException e) {
      op.cancel(true);
      throw e;
    }
    return await(op);
  }

  private InputStream openStream(String key, Optional<Version> version)
      throws RafeStoreException, InterruptedIOException {
    Names.checkKey(key);
    checkOpen();
    return await(bounded(ReadOp.stream(ctx, key, version), "open stream of '" + key + "'"))
        .stream();
  }

  @Override
  public CompletableFuture<HistoryPage> history(String key, Optional<Version> before, int limit) {
    Names.checkKey(key);
    Objects.requireNonNull(before, "before");
    if (limit < 1 || limit > 10_000) {
      throw new IllegalArgumentException("history limit must be 1 to 10000, was " + limit);
    }
    checkOpen();
    return bounded(
        traced(
            Kind.HISTORY,
            key,
            t ->
                t.timed(Phase.READ_M, MetadataRead.run(ctx, key))
                    .thenApply(
                        view -> {
                          ctx.readTier.rememberView(key, view);
                          List<VersionInfo> page = new ArrayList<>();
                          boolean more = false;
                          for (View.Item it : view.visible) {
                            if (before.isPresent() && it.version().compareTo(before.get()) >= 0) {
                              continue;
                            }
                            if (page.size() == limit) {
                              more = true;
                              break;
                            }
                            page.add(it.entry().info(key, it.version().writer()));
                          }
                          Optional<Version> next =
                              more
                                  ? Optional.of(page.get(page.size() - 1).version())
                                  : Optional.empty();
                          return new HistoryPage(key, page, next);
                        })),
        "history of '" + key + "'");
  }

  @Override
  public CompletableFuture<Void> delete(String key) {
    Names.checkKey(key);
    requireWriter("delete");
    checkOpen();
    return bounded(
        traced(
            Kind.DELETE,
            key,
            t ->
                certified(
                    () -> forgetting(key, afterWriteBack(key, () -> DeleteOp.run(ctx, key, t))))),
        "delete of '" + key + "'");
  }

  @Override
  public CompletableFuture<CollectionReport> collect(String key, RetentionPolicy policy) {
    Names.checkKey(key);
    Objects.requireNonNull(policy, "policy");
    requireWriter("collect");
    checkOpen();
    return bounded(
        traced(
            Kind.COLLECT,
            key,
            t ->
                certified(
                    () ->
                        forgetting(
                            key,
                            afterWriteBack(key, () -> Maintenance.collect(ctx, key, policy, t))))),
        "collection of '" + key + "'");
  }

  /**
   * {@code op}, a delete or collection of {@code key} by this client: the read tier forgets the
   * key's entries and view when it starts and again when it ends, so no read of this client answers
   * for a version it removed without asking readM.
   */
  private <T> CompletableFuture<T> forgetting(String key, CompletableFuture<T> op) {
    ctx.readTier.forget(key);
    return op.whenComplete((r, e) -> ctx.readTier.forget(key));
  }

  @Override
  public CompletableFuture<OrphanReport> collectOrphans(String key, Duration grace) {
    Names.checkKey(key);
    Objects.requireNonNull(grace, "grace");
    if (grace.isNegative()) {
      throw new IllegalArgumentException("orphan grace period must be >= 0, was " + grace);
    }
    checkOpen();
    return bounded(
        traced(
            Kind.COLLECT_ORPHANS, key, t -> Maintenance.collectOrphans(ctx, orphans, key, grace)),
        "orphan collection of '" + key + "'");
  }

  @Override
  public CompletableFuture<Map<String, Integer>> purge(String key) {
    Names.checkKey(key);
    requireWriter("purge");
    checkOpen();
    return bounded(
        traced(Kind.PURGE, key, t -> afterWriteBack(key, () -> Maintenance.purge(ctx, key))),
        "purge of '" + key + "'");
  }

  @Override
  public CompletableFuture<VerifyReport> verify(String key) {
    Names.checkKey(key);
    checkOpen();
    return bounded(
        traced(Kind.VERIFY, key, t -> Verifier.verify(ctx, key)), "verify of '" + key + "'");
  }

  @Override
  public CompletableFuture<RepairReport> repair(String key) {
    Names.checkKey(key);
    checkOpen();
    return bounded(
        traced(Kind.REPAIR, key, t -> Verifier.repair(ctx, key)), "repair of '" + key + "'");
  }

  @Override
  public CompletableFuture<List<String>> keys() {
    checkOpen();
    return bounded(traced(Kind.KEYS, "", t -> Listings.allKeys(ctx)), "key listing");
  }

  @Override
  public CompletableFuture<io.rafestore.KeyPage> keys(String after, int limit) {
    checkOpen();
    return bounded(traced(Kind.KEYS, "", t -> Listings.keys(ctx, after, limit)), "key listing");
  }

  @Override
  public CompletableFuture<List<VerifyReport>> verifyAll() {
    checkOpen();
    return foreground(
        guarded("verifyAll", traced(Kind.VERIFY_ALL, "", t -> eachKey(this::verify))));
  }

  @Override
  public CompletableFuture<List<RepairReport>> repairAll() {
    checkOpen();
    return foreground(
        guarded("repairAll", traced(Kind.REPAIR_ALL, "", t -> eachKey(this::repair))));
  }

  /** {@code op}, counted as a foreground operation until it completes. */
  private <T> CompletableFuture<T> foreground(CompletableFuture<T> op) {
    ctx.foreground.track(op);
    return op;
  }

  /**
   * Runs {@code op} on every key, one key at a time and one page of the key listing at a time, so
   * only one page of names is held besides the results. A {@link Loop}: no stack growth with the
   * number of keys, and cancelling the returned future (or closing the client) stops the walk.
   */
  private <T> CompletableFuture<List<T>> eachKey(
      java.util.function.Function<String, CompletableFuture<T>> op) {
    List<T> out = new ArrayList<>();
    KeyCursor cursor = new KeyCursor();
    CompletableFuture<Void> loop =
        Loop.repeat(
            ctx,
            () -> {
              if (cursor.page != null && cursor.index < cursor.page.keys().size()) {
                CompletableFuture<T> one = op.apply(cursor.page.keys().get(cursor.index++));
                return Loop.tied(
                    one,
                    one.thenApply(
                        r -> {
                          out.add(r);
                          return true;
                        }));
              }
              if (cursor.page != null && cursor.page.next().isEmpty()) {
                return CompletableFuture.completedFuture(false);
              }
              String after = cursor.page == null ? null : cursor.page.next().get();
              CompletableFuture<io.rafestore.KeyPage> next =
                  Listings.keys(ctx, after, Listings.PAGE);
              return Loop.tied(
                  next,
                  next.thenApply(
                      p -> {
                        cursor.page = p;
                        cursor.index = 0;
                        return true;
                      }));
            });
    return Loop.tied(loop, loop.thenApply(x -> List.copyOf(out)));
  }

  /** Where {@link #eachKey} is: the current page of keys and the next key in it. */
  private static final class KeyCursor {
    volatile io.rafestore.KeyPage page;
    volatile int index;
  }

  @Override
  public ConditionOne conditionOne() {
    return conditionOne(0);
  }

  @Override
  public ConditionOne conditionOne(long valueSize) {
    if (valueSize < 0) {
      throw new IllegalArgumentException("valueSize must be >= 0, was " + valueSize);
    }
    return Probe.conditionOne(ctx, ctx.dataOrder(valueSize), valueSize);
  }

  @Override
  public Map<String, CloudStats> stats() {
    Map<String, CloudStats> out = new LinkedHashMap<>();
    for (Cloud c : ctx.clouds) {
      long[] scrub = scrubTotals.of(c.id());
      out.put(
          c.id(),
          c.accounting()
              .snapshot()
              .withScrub(scrub[0], scrub[1], scrub[2], scrub[3])
              .priced(ctx.settings.pricing(c.id())));
    }
    return out;
  }

  @Override
  public io.rafestore.ReadTierStats readTierStats() {
    return prefetcher.stats();
  }

  @Override
  public io.rafestore.Scrubber scrubber(io.rafestore.ScrubOptions options) {
    Objects.requireNonNull(options, "options");
    checkOpen();
    io.rafestore.Scrubber s =
        new io.rafestore.internal.protocol.maintenance.Scrub(ctx, options, scrubTotals);
    scrubbers.add(s);
    if (closed.get()) {
      s.stop();
      throw new IllegalStateException("this RafeStore client is closed");
    }
    return s;
  }

  /** This writer's certificate stored on n - f clouds: set once, by the first certified write. */
  private final java.util.concurrent.atomic.AtomicReference<CompletableFuture<Void>> ownCertificate;

  /**
   * Runs {@code op} as this writer: with a certificate, only within its validity period (else a
   * {@link WriterTrustException} naming the reason, before anything is written) and after the
   * certificate is on n - f clouds, so that every reader that finds one of its logs can find the
   * certificate too (published once per client; a failed publication is tried again by the next
   * write).
   */
  private <T> CompletableFuture<T> certified(java.util.function.Supplier<CompletableFuture<T>> op) {
    WriterCertificate cert = ctx.settings.writerCertificate();
    if (cert == null) {
      return op.get();
    }
    try {
      cert.checkValidAt(ctx.settings.clock().instant());
    } catch (WriterTrustException e) {
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<Void> published = ownCertificate.get();
    if (published == null || published.isCompletedExceptionally()) {
      CompletableFuture<Void> next = new CompletableFuture<>();
      if (ownCertificate.compareAndSet(published, next)) {
        Futures.onEnd(
            io.rafestore.internal.protocol.quorum.CertifiedTrust.publish(
                ctx,
                "certificate of " + cert.writerId(),
                Names.certificateObject(cert.writerId()),
                cert.encoded()),
            (v, e) -> {
              if (e != null) {
                next.completeExceptionally(e);
              } else {
                next.complete(null);
              }
            });
      }
      published = ownCertificate.get();
    }
    // Composed: the operation timeout or a cancellation of the returned future reaches op.
    return Futures.compose(published, x -> op.get());
  }

  @Override
  public CompletableFuture<Void> checkWriter(String writerId) {
    Names.checkWriterId(writerId);
    checkOpen();
    return bounded(
        ctx.trust
            .check(writerId)
            .thenCompose(
                v -> {
                  if (!v.trusted()) {
                    return CompletableFuture.<Void>failedFuture(v.refusal());
                  }
                  if (v.certificate() != null) {
                    try {
                      v.certificate().checkValidAt(ctx.settings.clock().instant());
                    } catch (WriterTrustException e) {
                      return CompletableFuture.<Void>failedFuture(e);
                    }
                  }
                  return CompletableFuture.completedFuture((Void) null);
                }),
        "check of writer " + writerId);
  }

  @Override
  public CompletableFuture<Void> publishCertificate(WriterCertificate certificate) {
    Objects.requireNonNull(certificate, "certificate");
    checkOpen();
    return bounded(
        io.rafestore.internal.protocol.quorum.CertifiedTrust.publish(
            ctx,
            "certificate of " + certificate.writerId(),
            Names.certificateObject(certificate.writerId()),
            certificate.encoded()),
        "publication of the certificate of " + certificate.writerId());
  }

  @Override
  public CompletableFuture<Optional<RevocationList>> revocations(String operatorKeyId) {
    checkOpen();
    return bounded(
        certifiedTrust(operatorKeyId).revocations(operatorKeyId),
        "reading the revocation list of " + operatorKeyId);
  }

  @Override
  public CompletableFuture<Void> publishRevocations(RevocationList list) {
    Objects.requireNonNull(list, "list");
    checkOpen();
    String op = list.operatorKeyId();
    io.rafestore.internal.protocol.quorum.CertifiedTrust trust = certifiedTrust(op);
    try {
      list.verify(ctx.settings.operators());
    } catch (WriterTrustException e) {
      return CompletableFuture.failedFuture(e);
    }
    return bounded(
        trust
            .revocations(op)
            .thenCompose(
                held -> {
                  if (held.isPresent()) {
                    RevocationList h = held.get();
                    if (list.sequence() <= h.sequence()) {
                      return CompletableFuture.<Void>failedFuture(
                          new WriterTrustException(
                              WriterTrustException.Reason.STALE,
                              null,
                              "revocation list of "
                                  + op
                                  + " has sequence "
                                  + list.sequence()
                                  + ", not above the newest on the clouds, "
                                  + h.sequence()));
                    }
                    if (!list.revoked().containsAll(h.revoked())) {
                      java.util.Set<String> dropped = new java.util.TreeSet<>(h.revoked());
                      dropped.removeAll(list.revoked());
                      return CompletableFuture.<Void>failedFuture(
                          new WriterTrustException(
                              WriterTrustException.Reason.STALE,
                              null,
                              "revocation list of "
                                  + op
                                  + " drops writers the list on the clouds revokes: "
                                  + dropped
                                  + " (a revoked writer stays revoked)"));
                    }
                  }
                  return io.rafestore.internal.protocol.quorum.CertifiedTrust.publish(
                          ctx,
                          "revocation list of " + op,
                          Names.revocationObject(op),
                          list.encoded())
                      .thenRun(() -> trust.remember(list));
                }),
        "publication of the revocation list of " + op);
  }

  /** The certified trust, for an operator key this client trusts. */
  private io.rafestore.internal.protocol.quorum.CertifiedTrust certifiedTrust(String op) {
    if (!(ctx.trust instanceof io.rafestore.internal.protocol.quorum.CertifiedTrust t)
        || !ctx.settings.operators().containsKey(op)) {
      throw new IllegalArgumentException(
          "operator key '" + op + "' is not trusted by this client (Builder.trustOperator)");
    }
    return t;
  }

  @Override
  public int faultsTolerated() {
    return ctx.f();
  }

  @Override
  public BlockingRafeStore blocking() {
    return blocking;
  }

  @Override
  public void close() {
    if (root != this) {
      // A tenant view: the client is closed by its owner, not through a view.
      return;
    }
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    // Write-back first: no background write starts after this, and the journal keeps what is not
    // on the clouds yet for the next client.
    if (writeBack != null) {
      writeBack.close();
    }
    // Scrubbers next: they send no request after this.
    for (io.rafestore.Scrubber s : scrubbers) {
      s.stop();
    }
    // Packing stops first: a pack not yet in a log is an orphan, and no log loses anything.
    packer.close();
    // Prefetches are cancelled: nothing is sent for them after this.
    prefetcher.close();
    // Completed writes' puts to the clouds beyond their quorum, for the grace the builder gave.
    ctx.drain(ctx.settings.closeGrace());
    // Listing walks and key pages stop here, whether or not the drivers are ours to close.
    ctx.close();
    if (ctx.settings.closeDrivers()) {
      for (Cloud c : ctx.clouds) {
        try {
          c.raw().close();
        } catch (RuntimeException e) {
          // Closing is best effort; one driver's failure must not keep the others open.
          System.getLogger("io.rafestore")
              .log(
                  System.Logger.Level.WARNING,
                  "closing the driver of cloud " + c.id() + " failed",
                  e);
        }
      }
    }
  }

  private void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException("this RafeStore client is closed");
    }
  }

  private void requireWriter(String what) {
    if (!ctx.settings.canWrite()) {
      throw new IllegalStateException(
          "cannot " + what + ": this client has no writer identity (set Builder.writer)");
    }
  }

  /**
   * Runs {@code op} as one observed operation: its trace starts before {@code op} does and ends
   * with the future {@code op} returns, before the returned future completes ({@link
   * OpTrace#observe}: the operation timeout and the caller's cancellation reach {@code op} through
   * it). {@code op} gets the trace to time its phases.
   */
  private <T> CompletableFuture<T> traced(
      Kind kind, String key, java.util.function.Function<OpTrace, CompletableFuture<T>> op) {
    OpTrace trace = ctx.observer.start(key, kind, ctx.tenant);
    CompletableFuture<T> f;
    try {
      f = op.apply(trace);
    } catch (RuntimeException e) {
      trace.finish(e);
      throw e;
    }
    return trace.observe(f);
  }

  /**
   * Bounds an operation's resources: after the operation timeout it fails and, through its own
   * completion handlers, cancels whatever it still has in flight. Cancelling the returned future
   * cancels the operation.
   */
  private <T> CompletableFuture<T> bounded(CompletableFuture<T> op, String what) {
    CompletableFuture<T> out = guarded(what, op);
    ctx.foreground.track(out);
    ctx.tenancy.operationStarted(ctx.tenant, out);
    if (out.isDone()) {
      // Finished already (a write-back acknowledged on the calling thread): no timer to cancel.
      return out;
    }
    Duration timeout = ctx.settings.operationTimeout();
    Scheduler.Cancellable timer =
        ctx.settings
            .scheduler()
            .schedule(
                timeout,
                () -> {
                  RafeStoreException e =
                      new RafeStoreException(
                          what
                              + " did not finish within the operation timeout "
                              + timeout
                              + " (more than f clouds slow or hanging?)",
                          new TimeoutException());
                  if (op.completeExceptionally(e)) {
                    out.completeExceptionally(e);
                  }
                });
    Futures.onEnd(out, (r, e) -> timer.cancel());
    return out;
  }

  /**
   * Hands an operation's future to the caller, keeping the error contract: it fails only with a
   * {@link RafeStoreException} ({@link #callersError}); cancelling it cancels the operation.
   */
  private static <T> CompletableFuture<T> guarded(String what, CompletableFuture<T> op) {
    return Futures.relayTranslating(op, e -> callersError(what, e));
  }

  /**
   * The failure a caller sees for {@code failure} of the operation {@code what}: a {@link
   * RafeStoreException} as it is; anything else that escaped the protocol (a cancellation the
   * client caused itself, a runtime exception of a bug) wrapped in one that names the operation.
   * Errors ({@code OutOfMemoryError} and the like) pass through. A caller's own cancellation never
   * gets here: it completes the caller's future first.
   */
  static Throwable callersError(String what, Throwable failure) {
    Throwable cause = Futures.unwrap(failure);
    if (cause instanceof RafeStoreException || cause instanceof Error) {
      return cause;
    }
    if (cause instanceof CancellationException) {
      return new RafeStoreException(what + " was cancelled inside the client", cause);
    }
    return new RafeStoreException(what + " failed: " + cause, cause);
  }

  private final class Blocking implements BlockingRafeStore {
    @Override
    public WriteReceipt write(String key, byte[] value)
        throws RafeStoreException, InterruptedIOException {
      refuseOnAcknowledger();
      return await(Client.this.write(key, value));
    }

    @Override
    public io.rafestore.JournaledWrite writeBack(String key, byte[] value)
        throws RafeStoreException, InterruptedIOException {
      refuseOnAcknowledger();
      return await(Client.this.writeBack(key, value, true));
    }

    @Override
    public void flush() throws RafeStoreException, InterruptedIOException {
      refuseOnAcknowledger();
      await(Client.this.flush());
    }

    @Override
    public StoredValue read(String key) throws RafeStoreException, InterruptedIOException {
      refuseOnAcknowledger();
      return await(Client.this.read(key));
    }

    @Override
    public StoredValue read(String key, Version version)
        throws RafeStoreException, InterruptedIOException {
      refuseOnAcknowledger();
      return await(Client.this.read(key, version));
    }

    @Override
    public HistoryPage history(String key, Optional<Version> before, int limit)
        throws RafeStoreException, InterruptedIOException {
      refuseOnAcknowledger();
      return await(Client.this.history(key, before, limit));
    }

    @Override
    public void delete(String key) throws RafeStoreException, InterruptedIOException {
      refuseOnAcknowledger();
      await(Client.this.delete(key));
    }

    @Override
    public CollectionReport collect(String key, RetentionPolicy policy)
        throws RafeStoreException, InterruptedIOException {
      refuseOnAcknowledger();
      return await(Client.this.collect(key, policy));
    }

    @Override
    public OrphanReport collectOrphans(String key, Duration grace)
        throws RafeStoreException, InterruptedIOException {
      refuseOnAcknowledger();
      return await(Client.this.collectOrphans(key, grace));
    }

    @Override
    public Map<String, Integer> purge(String key)
        throws RafeStoreException, InterruptedIOException {
      refuseOnAcknowledger();
      return await(Client.this.purge(key));
    }

    @Override
    public void checkWriter(String writerId) throws RafeStoreException, InterruptedIOException {
      refuseOnAcknowledger();
      await(Client.this.checkWriter(writerId));
    }

    @Override
    public void publishCertificate(WriterCertificate certificate)
        throws RafeStoreException, InterruptedIOException {
      refuseOnAcknowledger();
      await(Client.this.publishCertificate(certificate));
    }

    @Override
    public Optional<RevocationList> revocations(String operatorKeyId)
        throws RafeStoreException, InterruptedIOException {
      refuseOnAcknowledger();
      return await(Client.this.revocations(operatorKeyId));
    }

    @Override
    public void publishRevocations(RevocationList list)
        throws RafeStoreException, InterruptedIOException {
      refuseOnAcknowledger();
      await(Client.this.publishRevocations(list));
    }

    @Override
    public VerifyReport verify(String key) throws RafeStoreException, InterruptedIOException {
      refuseOnAcknowledger();
      return await(Client.this.verify(key));
    }

    @Override
    public RepairReport repair(String key) throws RafeStoreException, InterruptedIOException {
      refuseOnAcknowledger();
      return await(Client.this.repair(key));
    }

    @Override
    public List<String> keys() throws RafeStoreException, InterruptedIOException {
      refuseOnAcknowledger();
      return await(Client.this.keys());
    }

    @Override
    public io.rafestore.KeyPage keys(String after, int limit)
        throws RafeStoreException, InterruptedIOException {
      refuseOnAcknowledger();
      return await(Client.this.keys(after, limit));
    }

    @Override
    public List<VerifyReport> verifyAll() throws RafeStoreException, InterruptedIOException {
      refuseOnAcknowledger();
      return await(Client.this.verifyAll());
    }

    @Override
    public List<RepairReport> repairAll() throws RafeStoreException, InterruptedIOException {
      refuseOnAcknowledger();
      return await(Client.this.repairAll());
    }

    @Override
    public byte[] read(String key, Version version, long offset, int length)
        throws RafeStoreException, InterruptedIOException {
      refuseOnAcknowledger();
      return await(Client.this.read(key, version, offset, length));
    }

    @Override
    public WriteReceipt write(String key, InputStream in, long size) throws IOException {
      return writeStream(key, in, size);
    }

    @Override
    public InputStream openStream(String key) throws RafeStoreException, InterruptedIOException {
      return Client.this.openStream(key, Optional.empty());
    }

    @Override
    public InputStream openStream(String key, Version version)
        throws RafeStoreException, InterruptedIOException {
      Objects.requireNonNull(version, "version");
      return Client.this.openStream(key, Optional.of(version));
    }

    @Override
    public ProbeReport probe(ProbeOptions options)
        throws RafeStoreException, InterruptedIOException {
      refuseOnAcknowledger();
      return await(Client.this.probe(options));
    }
  }

  static <T> T await(CompletableFuture<T> future)
      throws RafeStoreException, InterruptedIOException {
    refuseOnAcknowledger();
    return awaitChecked(future);
  }

  /**
   * Refuses a blocking call on a journal's acknowledger thread, before the call starts anything.
   */
  static void refuseOnAcknowledger() {
    if (io.rafestore.internal.journal.Journal.onAcknowledgerThread()) {
      // A callback of a write-back acknowledgement runs on the journal's acknowledger thread; a
      // call that waits here may wait for an acknowledgement (a write-back, a write-through or
      // flush behind journaled writes, a commit record), which only that thread completes.
      throw new IllegalStateException(
          "a blocking RafeStore call from a callback of a write-back acknowledgement (the"
              + " journal's acknowledger thread) would wait for that thread itself: continue on an"
              + " executor of your own (thenApplyAsync, thenAcceptAsync) or use the asynchronous"
              + " API");
    }
  }

  private static <T> T awaitChecked(CompletableFuture<T> future)
      throws RafeStoreException, InterruptedIOException {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for RafeStore");
    } catch (ExecutionException | CancellationException e) {
      // The futures waited on here come from guarded(), so this is a RafeStoreException already;
      // a cancellation cannot be the caller's (the facade hands out no future to cancel).
      Throwable cause = callersError("operation", e);
      if (cause instanceof Error err) {
        throw err;
      }
      throw (RafeStoreException) cause;
    }
  }
}
