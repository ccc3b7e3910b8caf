package io.rafestore;

import io.rafestore.internal.protocol.Client;
import io.rafestore.internal.protocol.config.Settings;
import io.rafestore.spi.CloudDriver;
import java.security.KeyPair;
import java.security.PublicKey;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * A client of multi-version storage kept on several independent clouds, up to f of which may be
 * Byzantine: down, slow, lying about versions, or returning garbage.
 *
 * <p><b>Data model</b> (the paper's "independent content"): a key has a history of versions; a
 * write adds a new version without reading the old value (a blind write); a read returns the latest
 * version or a given one; {@link #history} lists versions newest first. A forum thread or an RSS
 * feed is one key whose versions are its posts.
 *
 * <p><b>Fault model and guarantees.</b> With n metadata clouds, n >= 3f+1, and at least 2f+1 data
 * clouds, of which at most f are faulty in any way, and writers whose signing keys are trusted and
 * not compromised:
 *
 * <ul>
 *   <li>A read never returns bytes that do not match the SHA-256 in metadata signed by a trusted
 *       writer ({@link IntegrityException} instead).
 *   <li>Reads are <em>regular</em>: a read that starts after a write completed returns that version
 *       or a newer one; a read concurrent with writes returns the last completed version or one
 *       being written. (Not atomic: two reads concurrent with one write may disagree.)
 *   <li>Every completed write appears exactly once in {@link #history}, in one order that every
 *       reader sees, also with several concurrent writers on one key; no locks, no leases, no clock
 *       synchronisation.
 *   <li>Operations complete while at most f clouds fail; timeouts bound resources, they never
 *       decide correctness.
 * </ul>
 *
 * With more than f faulty clouds a read fails with a clear error or returns an older version that
 * is still validly signed; it never returns bytes that fail verification.
 *
 * <p><b>Thread-safety.</b> Immutable after {@link Builder#build()} and safe for concurrent use.
 * Writes by one client to one key are ordered in call order; writes to different keys run in
 * parallel. A writer id must be used by one client at a time.
 *
 * <p>All asynchronous methods return at once; their futures fail only with a {@link
 * RafeStoreException} subclass, whatever the clouds do (a future the caller cancels is cancelled,
 * and an {@link Error} such as {@code OutOfMemoryError} passes through). Invalid arguments (a bad
 * key, a missing value) throw {@link IllegalArgumentException} or {@link NullPointerException} at
 * the call, naming what was wrong; calling a closed client, or a writing method on a client without
 * a writer identity, throws {@link IllegalStateException} at the call.
 */
public interface RafeStore extends AutoCloseable {

  /** A new builder. */
  static Builder builder() {
    return new Builder();
  }

  /** Writes a new version of {@code key} holding {@code value} (a blind write). */
  CompletableFuture<WriteReceipt> write(String key, byte[] value);

  /**
   * Writes a new version of {@code key} <em>write-back</em>: completes once the value and the
   * write's intent are fsynced to the local journal ({@link Builder#writeBack}), and the client
   * then writes it to the clouds in the background with the normal protocol. The {@link
   * JournaledWrite} reports both moments: durable locally (when it completes) and durable on the
   * clouds ({@link JournaledWrite#onClouds()}, with the version). Failed cloud attempts are retried
   * in the background; a crashed client's acknowledged writes are written by the next client built
   * with the same journal and writer, each exactly once (design.md, "Write-back journal").
   *
   * <p>Writes of one client to one key, write-back or not, reach the clouds in call order: a {@link
   * #write}, {@link #delete} or {@link #collect} of a key waits for this client's journaled writes
   * of that key. {@link #read(String)} returns this client's newest journaled write of the key
   * while it is not on the clouds ({@link StoredValue#FROM_JOURNAL}), unless the clouds hold a
   * newer version.
   *
   * <p>Fails with {@link JournalException}: {@link JournalException.Reason#FULL} at once if the
   * journal is full and {@link WriteBack.WhenFull#FAIL} was chosen (with {@link
   * WriteBack.WhenFull#WAIT} it waits for space, within the operation timeout), {@link
   * JournalException.Reason#IO} at once if the journal's disk fails (full, read-only). A write that
   * failed so was not acknowledged and is never written. Only {@link ProtocolMode#PAPER} and {@link
   * ProtocolMode#FAST} write back.
   *
   * <p>A callback attached to the returned future before it completes runs on the journal's
   * acknowledger thread, which completes the acknowledgements in order: keep it short, and do not
   * block there (a {@link BlockingRafeStore} call made on that thread fails with {@link
   * IllegalStateException}, as it would wait for that thread); continue on an executor of your own
   * ({@code thenApplyAsync}) for anything longer.
   *
   * @throws IllegalStateException if the client has no write-back journal or no writer identity
   */
  CompletableFuture<JournaledWrite> writeBack(String key, byte[] value);

  /**
   * Completes when every write-back write journaled before this call, including those a crashed
   * predecessor left in the journal, is on the clouds (at once without a journal). It waits while
   * cloud attempts are retried, within the operation timeout; a write is never dropped to make a
   * flush complete.
   */
  CompletableFuture<Void> flush();

  /** Reads the latest version of {@code key}; fails with {@link KeyNotFoundException} if none. */
  CompletableFuture<StoredValue> read(String key);

  /**
   * Reads the latest version of {@code key} as this client last verified it, if it did so within
   * {@code maxStaleness} (a bounded-staleness read: it may miss writes completed in that time, and
   * answers without readM, from the cache or the version's holders); otherwise exactly as {@link
   * #read(String)}. {@link Duration#ZERO} is a regular read. Overrides {@link Builder#maxStaleness}
   * for this read.
   *
   * @throws IllegalArgumentException if {@code maxStaleness} is negative
   */
  CompletableFuture<StoredValue> read(String key, java.time.Duration maxStaleness);

  /**
   * Reads one version of {@code key}; fails with {@link VersionNotFoundException} if the history
   * does not have it.
   */
  CompletableFuture<StoredValue> read(String key, Version version);

  /**
   * Lists versions of {@code key}, newest first.
   *
   * @param before start after this version (the previous page's {@link HistoryPage#nextBefore});
   *     empty for the newest
   * @param limit page size, 1 to 10,000
   */
  CompletableFuture<HistoryPage> history(String key, Optional<Version> before, int limit);

  /**
   * Deletes {@code key}: a signed tombstone hides every version up to now from readers (so no cloud
   * can resurrect the key by replaying old metadata), then the data objects are removed. A later
   * write starts a new history.
   */
  CompletableFuture<Void> delete(String key);

  /**
   * Garbage-collects old versions of {@code key} under {@code policy}. Every version older than the
   * oldest one the policy keeps is collected: this writer stores its log with a signed watermark
   * ("every version up to V is collected") and without its own collected entries (compaction) on n
   * - f clouds, and only then deletes the collected versions' data objects from every cloud. Other
   * writers' logs shrink when those writers next write; until then readers honour the watermark
   * across logs. A reader asking for a collected version gets {@link VersionCollectedException},
   * also if it read metadata before the collection and found the data gone. The newest version is
   * never collected. Needs a writer identity.
   */
  CompletableFuture<CollectionReport> collect(String key, RetentionPolicy policy);

  /**
   * Deletes data objects of {@code key} that no trusted writer's log references (left by writers
   * that crashed between writeDo and writeM, or by surplus uploads that landed), once this client
   * has seen them unreferenced for at least {@code grace}. A write in flight has uploaded data but
   * not yet metadata, so {@code grace} must exceed the writers' operation timeout; the first call
   * only notes what it sees, unless {@code grace} is zero (safe only when no write is running).
   */
  CompletableFuture<OrphanReport> collectOrphans(String key, java.time.Duration grace);

  /**
   * Deletes {@code key} (a signed tombstone, then its data) and then removes every remaining data
   * and metadata object of the key from every cloud, including the tombstone itself. Afterwards a
   * faulty cloud that kept an old log could replay it; readers then find no data and fail with an
   * error, never with wrong bytes. Completes with the number of objects removed per cloud.
   */
  CompletableFuture<Map<String, Integer>> purge(String key);

  /**
   * Checks {@code key} on every cloud: the newest validly signed log of every trusted writer, and
   * data with the signed hash on every listed holder of every retained version. Asks all n clouds,
   * not a quorum; a cloud that does not answer within half the operation timeout is reported
   * unreachable.
   */
  CompletableFuture<VerifyReport> verify(String key);

  /**
   * Verifies {@code key}, copies the newest signed logs verbatim to clouds that lack them or hold
   * older or invalid ones, re-puts verified replicated data onto listed holders that lost it, and
   * verifies again. Needs no writer identity: it only copies what trusted writers signed.
   */
  CompletableFuture<RepairReport> repair(String key);

  /**
   * Every key with a metadata object on at least one cloud that answered the listing, sorted. The
   * listings are walked page by page ({@link #keys(String, int)}), so the client holds the keys,
   * not every object name of the buckets.
   */
  CompletableFuture<List<String>> keys();

  /**
   * One page of {@link #keys()}: up to {@code limit} keys after {@code after} (null for the first
   * page), in the order of their encoded object names. The listings finish at n - f clouds; a key
   * whose metadata reached n - f clouds is always listed.
   *
   * @throws IllegalArgumentException if {@code limit} is below 1 or {@code after} is not a valid
   *     key
   */
  CompletableFuture<KeyPage> keys(String after, int limit);

  /**
   * {@link #verify} of every key in {@link #keys()}, one key at a time, walking the key listing a
   * page at a time.
   */
  CompletableFuture<List<VerifyReport>> verifyAll();

  /** {@link #repair} of every key in {@link #keys()}, one key at a time, a page at a time. */
  CompletableFuture<List<RepairReport>> repairAll();

  /**
   * Reads {@code length} bytes from {@code offset} of one version (fewer if the value ends first).
   * Only the parts covering the range are fetched, each verified against its signed SHA-256 before
   * any of its bytes are returned (and, for an encrypted value, opened). A value stored whole (at
   * most {@link Builder#partSize}, an erasure-coded value, or any DepSky value) is fetched whole
   * and verified, then cut: a ranged GET of an unsplit object could not be checked against anything
   * signed.
   *
   * @throws IllegalArgumentException if {@code offset} or {@code length} is negative
   */
  CompletableFuture<byte[]> read(String key, Version version, long offset, int length);

  /**
   * Measures every cloud as the paper did (small puts, one after another) and its bandwidth with
   * larger puts, feeds the measurements into the live latency model, and reports per-cloud RTT and
   * bandwidth, the configured and the recommended arrangement, and Condition 1 for small values and
   * for {@link ProbeOptions#valueSize}. Probe objects are written under {@link ProbeOptions#PREFIX}
   * and deleted afterwards. Needs no writer identity.
   */
  CompletableFuture<ProbeReport> probe(ProbeOptions options);

  /** Condition 1 for small values, from the client's current latency estimates. */
  ConditionOne conditionOne();

  /** Condition 1 for values of {@code valueSize} bytes (each data term includes transfer time). */
  ConditionOne conditionOne(long valueSize);

  /**
   * Per-cloud request and byte counts since the client was built, keyed by cloud id, with the
   * reads' anticipated data fetches counted (started, kept, wasted) on the cloud whose log started
   * each ({@link Builder#speculativeReads}), and what each cloud has cost so far at its {@link
   * Pricing} ({@link Builder#pricing}): {@link CloudStats#dollars()}, by requests and egress.
   */
  Map<String, CloudStats> stats();

  /**
   * What the read tier did since the client was built: cache hits and misses, bytes and dollars
   * saved, prefetches used and wasted, the history graph's size ({@link ReadTierStats#NONE} without
   * a {@link Builder#valueCache}).
   */
  ReadTierStats readTierStats();

  /**
   * A background scrubber of the whole store with these options, not started yet ({@link
   * Scrubber#start}): it verifies every key at the pace its budget allows and repairs what it
   * finds. Closing the client stops it. Needs no writer identity.
   */
  Scrubber scrubber(ScrubOptions options);

  /**
   * Whether {@code writerId} may write now as this client judges it: completes normally if the
   * writer is trusted explicitly ({@link Builder#trustWriter}), or holds a certificate on the
   * clouds from a trusted operator key ({@link Builder#trustOperator}) that is valid now and not
   * revoked; fails with {@link WriterTrustException} naming the reason otherwise (revoked, expired,
   * not yet valid, forged, unknown operator, not certified), or with {@link QuorumException} if the
   * certificates or revocation lists cannot be read. Needs no writer identity.
   */
  CompletableFuture<Void> checkWriter(String writerId);

  /**
   * Stores a writer certificate on the clouds ({@code c/<writer>}, completes once n - f have it),
   * as a writer does with its own before its first write. Needs no writer identity: a certificate
   * is checked by readers, not by who stores it.
   */
  CompletableFuture<Void> publishCertificate(WriterCertificate certificate);

  /**
   * The newest revocation list of {@code operatorKeyId} this client has seen, read again now from a
   * quorum of clouds (empty if the operator never published one). Needs {@code operatorKeyId} to be
   * trusted ({@link Builder#trustOperator}).
   */
  CompletableFuture<Optional<RevocationList>> revocations(String operatorKeyId);

  /**
   * Publishes {@code list} ({@code r/<operator>}, completes once n - f clouds have it). Refused
   * with {@link WriterTrustException} ({@link WriterTrustException.Reason#STALE}) unless its
   * sequence is above the newest list of that operator on a quorum of clouds and it still revokes
   * every writer that list revokes; and if its operator key is not trusted or its signature does
   * not verify. Readers stop accepting a writer it revokes within {@link Builder#trustRefresh} of
   * its completion (design.md section 4).
   */
  CompletableFuture<Void> publishRevocations(RevocationList list);

  /** f, the number of faulty clouds tolerated. */
  int faultsTolerated();

  /** A blocking view of this client (same instance state). */
  BlockingRafeStore blocking();

  /**
   * A view of this client whose every operation, and the background work it causes (write-back
   * uploads, prefetches), is done on behalf of {@code tenant}: same clouds, keys, caches, journal
   * and per-key order as this client (two views writing one key serialize as one client does); with
   * {@link Builder#fairness} on, its requests are scheduled by the tenant's {@link TenantShare}.
   * Views are cached (at most 1,024; beyond that a new view object is made each time, equally
   * valid). {@code forTenant(t).blocking()} is the blocking view of it. Closing a view does
   * nothing: close the client. A view of a view is a view of the client.
   *
   * @param tenant 1 to 64 characters of {@code A-Z a-z 0-9 - _ .}; {@value
   *     CloudRequest#DEFAULT_TENANT} is the client itself
   * @throws IllegalArgumentException naming the bad id
   */
  RafeStore forTenant(String tenant);

  /**
   * The tenant this client or view acts for ({@value CloudRequest#DEFAULT_TENANT} for a client).
   */
  String tenant();

  /**
   * Per-tenant operations, bytes, latency percentiles and received share since the client was
   * built, keyed by tenant id (the same map from every view). At most 4,096 tenants are tracked
   * apart; the requests and operations of further tenants are counted under {@code "(other)"}.
   */
  Map<String, TenantStats> tenantStats();

  /**
   * Closes the client and the drivers it owns. Idempotent. A write completes once n - f clouds
   * acknowledged its log; the puts to the remaining clouds go on after it (they bring those clouds
   * up to date). close() waits up to {@link Builder#closeGrace} for them (none by default), then
   * cancels what is left: a cloud left behind is found and brought up to date by verify/repair.
   */
  @Override
  void close();

  /**
   * Builds a {@link RafeStore}. Not thread-safe; every setting is validated in {@link #build()}
   * with a message naming the setting and the accepted range.
   */
  final class Builder {
    // Every setting goes straight into the draft by name; its initial values are the defaults
    // documented on each method. build() hands it to Settings, which validates it in one place.
    private final Settings.Draft draft = new Settings.Draft();

    Builder() {}

    /** f, the number of Byzantine clouds to tolerate (default 1). */
    public Builder faultsTolerated(int f) {
      draft.f = f;
      return this;
    }

    /** Adds a cloud that holds data and metadata, with no latency hint. */
    public Builder cloud(CloudDriver driver) {
      return cloud(driver, CloudRole.DATA_AND_METADATA, null);
    }

    /** Adds a cloud with the given role. */
    public Builder cloud(CloudDriver driver, CloudRole role) {
      return cloud(driver, role, null);
    }

    /**
     * Adds a cloud with the given role and an expected round-trip time, used to order data clouds
     * until the client has measured them (clouds without a hint keep the order they were added in,
     * after hinted ones).
     */
    public Builder cloud(CloudDriver driver, CloudRole role, Duration expectedRtt) {
      draft.clouds.add(new Settings.CloudSetting(driver, role, expectedRtt));
      return this;
    }

    /** This client's writer identity: its id and Ed25519 key pair. Omit for a read-only client. */
    public Builder writer(String id, KeyPair ed25519KeyPair) {
      draft.writerId = id;
      draft.writerKeys = ed25519KeyPair;
      return this;
    }

    /**
     * Trusts metadata signed by writer {@code id} with this Ed25519 public key. The client's own
     * writer is trusted implicitly.
     */
    public Builder trustWriter(String id, PublicKey ed25519PublicKey) {
      draft.trusted.put(Objects.requireNonNull(id, "trusted writer id"), ed25519PublicKey);
      return this;
    }

    /**
     * Confidentiality for the RafeStore modes (default off): each value is encrypted with
     * AES-256-GCM under a fresh random key before writeDo, and the key is kept only as Shamir
     * shares, one in each cloud's metadata object, any f+1 of which recover it. No f clouds
     * together can read a value; the data clouds hold only ciphertext. Costs 28 bytes per value and
     * about 50 bytes of metadata per version per cloud; a read needs f+1 valid shares, which readM
     * usually already brings. Readers need no setting: they decrypt what is sealed. {@link
     * ProtocolMode#DEPSKY_CA} always encrypts; {@link ProtocolMode#DEPSKY_A} refuses this option.
     */
    public Builder encryptValues(boolean encrypt) {
      draft.encryptValues = encrypt;
      return this;
    }

    /**
     * Erasure-coded data for the RafeStore modes (default off, 0): each value is Reed-Solomon coded
     * into {@code k} data and f parity fragments written to k+f data clouds, one fragment each, so
     * storage falls from (f+1)x to (k+f)/k x of the value while any f faulty holders still leave k
     * correct fragments. Needs at least k+f data clouds; k >= 2. Reads fetch the k predicted
     * fastest fragments and more only when one fails or is late. Combines with {@link
     * #encryptValues} (the sealed value is coded). Values above {@link #partSize} are coded part by
     * part (each part's k + f fragments on the same k + f clouds), so they stream and ranged reads
     * fetch only the parts they cover. A fixed layout: refused with {@code layout(Layout.AUTO)}.
     */
    public Builder erasureCoding(int k) {
      draft.erasureK = k;
      return this;
    }

    /**
     * How new values are laid out in the RafeStore modes (default {@link Layout#FIXED}: whole
     * copies, or the fragments {@link #erasureCoding} sets). {@link Layout#AUTO} chooses per value,
     * from the measured round-trip times and bandwidths and the clouds' prices, under the {@link
     * #objective}: whole copies on which f+1 clouds, or k data and f parity fragments with which k
     * on which k+f clouds; each write's receipt says what was chosen and why ({@link
     * WriteReceipt#layoutChoice()}). AUTO is refused with {@code erasureCoding(k)} and in the
     * DepSky modes.
     */
    public Builder layout(Layout layout) {
      draft.layout = layout;
      return this;
    }

    /**
     * What the client minimises (default {@link Objective#latency()}): the layout chosen per value
     * under {@link Layout#AUTO}, and, for {@link Objective#cost()}, the bytes a read may fetch
     * before readM decides (lowered to {@link Objective#COST_SPECULATIVE_READ_LIMIT} unless {@link
     * #speculativeReadLimit} or {@link #speculativeReads} was set).
     */
    public Builder objective(Objective objective) {
      draft.objective = objective;
      return this;
    }

    /** The protocol mode (default {@link ProtocolMode#PAPER}). */
    public Builder mode(ProtocolMode mode) {
      draft.mode = mode;
      return this;
    }

    /**
     * Runs CPU work (hashing, signing, verifying) and callbacks. Default: one JVM-wide pool of
     * daemon threads as wide as the CPUs (at least two), not the common fork-join pool, whose
     * parallelism of 1 on two-CPU machines makes {@code CompletableFuture} start a thread per task.
     * Tests on virtual time pass {@code Runnable::run}.
     */
    public Builder executor(Executor executor) {
      draft.executor = executor;
      return this;
    }

    /** Time and timers (default {@link Scheduler#system()}). */
    public Builder scheduler(Scheduler scheduler) {
      draft.scheduler = scheduler;
      return this;
    }

    /** Wall clock, only for the informational creation time of versions (default UTC). */
    public Builder clock(Clock clock) {
      draft.clock = clock;
      return this;
    }

    /** Receives fault and write events (default none). */
    public Builder listener(RafeStoreListener listener) {
      draft.listener = listener;
      return this;
    }

    /** Largest value accepted by {@link #write} (default 64 MiB, at most 2 GiB - 1). */
    public Builder maxValueBytes(long max) {
      draft.maxValueBytes = max;
      return this;
    }

    /**
     * Largest metadata object accepted from a cloud (default 8 MiB); larger ones are rejected
     * unread as malformed.
     */
    public Builder maxMetadataBytes(int max) {
      draft.maxMetadataBytes = max;
      return this;
    }

    /**
     * Upper bound on one operation, to bound resources when more than f clouds hang (default 5
     * minutes). It never decides correctness: an operation that times out reports failure.
     */
    public Builder operationTimeout(Duration timeout) {
      draft.operationTimeout = timeout;
      return this;
    }

    /**
     * How long {@link RafeStore#close()} waits for the metadata puts that completed writes left
     * running to the clouds beyond their quorum (default zero: close does not wait). A short-lived
     * process that writes and exits (the command line) sets it, so that every reachable cloud
     * receives the write's log rather than only the first n - f; a cloud still not done when the
     * grace ends is left to verify/repair, as a cloud that was down would be.
     *
     * @param grace zero or positive
     */
    public Builder closeGrace(Duration grace) {
      draft.closeGrace = grace;
      return this;
    }

    /**
     * Use data clouds in the order they were added (the first f+1 receive each value, the rest are
     * writeDf's extras, as in the paper's hand-made Table 2 arrangements) instead of the default,
     * fastest predicted completion first for each value's size.
     */
    public Builder dataCloudsInOrderAdded(boolean asAdded) {
      draft.dataOrderAsAdded = asAdded;
      return this;
    }

    /**
     * Values larger than this are split into parts of at most this size, each stored as its own
     * object on every data holder and each hashed in the signed metadata, so that large values are
     * uploaded in parallel, streamed with bounded memory and read by range with verification
     * (default 8 MiB; 1 KiB to 1 GiB). Applies to {@link ProtocolMode#PAPER} and {@link
     * ProtocolMode#FAST}; the DepSky baselines store values whole.
     */
    public Builder partSize(long bytes) {
      draft.partSize = bytes;
      return this;
    }

    /**
     * How many parts one upload to one cloud, one ranged read or one stream keeps in flight, and so
     * how many parts a streaming write or read buffers (default 4; 1 to 64). Memory per stream is
     * bounded by about {@code partsInFlight x partSize}.
     */
    public Builder partsInFlight(int parts) {
      draft.partsInFlight = parts;
      return this;
    }

    /**
     * Whether reads anticipate their data fetch (default true): as soon as the first cloud's
     * validly signed log arrives during readM, the newest version it names (or the version asked
     * for) is fetched from its predicted fastest holder, side by side with the rest of readM. The
     * fetch is kept only if readM decides on exactly that signed entry, and cancelled otherwise;
     * nothing is returned that readM did not decide and the signed hashes did not check. It costs a
     * wasted request (and its egress) when a writer's newer version or a faulty cloud's stale log
     * misleads it; {@link CloudStats} counts kept and wasted ones. Equivalent to {@code
     * speculativeReadLimit(on ? 8 MiB : 0)}. Only {@link ProtocolMode#PAPER} and {@link
     * ProtocolMode#FAST} anticipate; the DepSky baselines keep their phases apart.
     */
    public Builder speculativeReads(boolean on) {
      draft.speculativeReadLimit = on ? 8L * 1024 * 1024 : 0;
      draft.speculativeReadLimitSet = true;
      return this;
    }

    /**
     * The largest anticipated data fetch, in bytes (default 8 MiB; 0 turns anticipation off; must
     * be >= 0): a whole value or, for a value in parts, the first part a read needs. A read whose
     * anticipated fetch would move more bytes waits for readM, as when anticipation is off. An
     * application that weighs egress dollars above read latency lowers it, bounding what a wasted
     * fetch can cost; the cost {@link #objective} does so (to {@link
     * Objective#COST_SPECULATIVE_READ_LIMIT}) unless it was set here.
     */
    public Builder speculativeReadLimit(long bytes) {
      draft.speculativeReadLimit = bytes;
      draft.speculativeReadLimitSet = true;
      return this;
    }

    /**
     * The largest value written <em>inline</em>, inside the writer's signed metadata log rather
     * than as a data object (default 64 KiB; 0 turns inline values off; at most {@link
     * #inlineLogBudget}). Only {@link ProtocolMode#PAPER} and {@link ProtocolMode#FAST} write
     * inline; the DepSky baselines never do. An inline write is one metadata round (writeM; readM
     * first unless {@code FAST} lets it be skipped) and contacts no data cloud; a read of it needs
     * no data fetch. The log reaches n - f clouds, so f+1 correct clouds hold the value. Older
     * inline values are later packed in the background into one data object on f+1 data clouds, so
     * a log stays small: every read downloads the logs from n - f clouds. Sealed under {@link
     * #encryptValues} as any value.
     */
    public Builder inlineThreshold(long bytes) {
      draft.inlineThreshold = bytes;
      return this;
    }

    /**
     * The most stored bytes of inline values one writer's log of one key may hold (default 128 KiB;
     * from {@link #inlineThreshold} to {@link #maxMetadataBytes} / 2). Packing starts well below it
     * (once older inline values exceed 4 KiB), and a write that would push a log over it first
     * packs the older inline values, so the bound holds whatever the timing; a larger budget only
     * lets writes go on for longer while packing is slow or failing.
     */
    public Builder inlineLogBudget(long bytes) {
      draft.inlineLogBudget = bytes;
      return this;
    }

    /**
     * The JCA provider that signs and verifies metadata (Ed25519), default null: BouncyCastle's
     * Ed25519 (a dependency of RafeStore), called directly on the raw keys, without JCA. A given
     * provider is used through {@code java.security.Signature}; for example {@code
     * Security.getProvider("SunEC")} for the JDK's own Ed25519, a slow reference implementation on
     * JDK 17 (several times the client's CPU per small write, docs/benchmarks.md). Signatures are
     * the same bytes whichever implementation made them (Ed25519 is deterministic), so clients with
     * different providers interoperate. Keys from {@link SigningKeys} work with any provider (they
     * are translated once, at build); a provider without Ed25519 is refused at build.
     */
    public Builder signatureProvider(java.security.Provider provider) {
      draft.signatureProvider = provider;
      return this;
    }

    /**
     * What cloud {@code cloudId} charges (the cost model): the prices the layout chooser weighs
     * against time under the {@link #objective} with {@link Layout#AUTO}, {@link RafeStore#stats()}
     * reports each cloud's spend with, and features that spend money on the store's behalf (the
     * {@link Scrubber}'s dollar budget) are bounded by. Clouds without one are priced at {@link
     * Pricing#DEFAULT} (S3 Standard list prices, an assumption; see {@link Pricing} for the tables
     * of other providers).
     *
     * @param cloudId the id of a configured cloud (checked in {@link #build()})
     */
    public Builder pricing(String cloudId, Pricing pricing) {
      draft.pricing.put(
          Objects.requireNonNull(cloudId, "pricing cloud id"),
          Objects.requireNonNull(pricing, "pricing"));
      return this;
    }

    /**
     * The read tier's cache (default none): reads keep the verified stored bytes of the versions
     * they fetch there, keyed by key, version, part and signed SHA-256, and use them instead of a
     * cloud. A read of the latest version still runs readM (regular reads) but fetches no data the
     * cache holds; a read of a version this client has read (or a range of it) whose bytes are all
     * cached touches no cloud. Every byte the cache returns is checked against its signed hash
     * first, so a cache can never make a read return another version's bytes or wrong ones. Only
     * {@link ProtocolMode#PAPER} and {@link ProtocolMode#FAST} use a cache. One cache serves one
     * client. See {@code io.rafestore.cache.CaffeineValueCache} (module {@code rafestore-cache}).
     */
    public Builder valueCache(ValueCache cache) {
      draft.valueCache = cache;
      return this;
    }

    /**
     * How the read tier fetches ahead of reads (default {@link Prefetch#off()}); needs a {@link
     * #valueCache}.
     */
    public Builder prefetch(Prefetch prefetch) {
      draft.prefetch = prefetch;
      return this;
    }

    /**
     * How old the metadata a read of the latest version may answer from is allowed to be (default
     * zero: never; every such read runs readM and is regular). With a positive bound, {@link
     * RafeStore#read(String)} of a key this client verified (by a readM of a read, a history page
     * or a metadata prefetch) within the bound answers from that verified view without readM: it
     * may miss writes completed since, by at most that long. Bytes are always checked against the
     * signed hash. Per read: {@link RafeStore#read(String, Duration)}. At most one day.
     */
    public Builder maxStaleness(Duration maxStaleness) {
      draft.maxStaleness = maxStaleness;
      return this;
    }

    /**
     * Trusts the operator (root) key {@code keyId}: writers holding a certificate it signed ({@link
     * WriterCertificate}), stored on the clouds, are trusted without being configured here, unless
     * an operator's revocation list names them (design.md section 4, "Writer certificates"). At
     * most 16 operator keys; explicit {@link #trustWriter} keeps working beside them.
     */
    public Builder trustOperator(String keyId, PublicKey ed25519PublicKey) {
      draft.operators.put(Objects.requireNonNull(keyId, "operator key id"), ed25519PublicKey);
      return this;
    }

    /**
     * Group commit (default true): writes of this client to one key whose values go inline ({@link
     * #inlineThreshold}) share one metadata round when they arrive while an earlier round of the
     * key is in flight: one readM (unless {@link ProtocolMode#FAST} skips it) and one writeM of a
     * signed log that carries all their entries, each write its own version in the order the writes
     * were called, each caller its own receipt. A round starts as soon as the previous one of the
     * key ends, never on a timer, so a write to an idle key goes at once and is not slower than
     * without group commit; a failed round fails every write in it. The background uploads of
     * write-back writes ({@link #writeBack}) share rounds the same way: a key's journaled inline
     * writes waiting when its previous upload ends go up in one round. {@code false} runs one round
     * per write (the behaviour before group commit; the benchmark's baseline).
     */
    public Builder groupCommit(boolean on) {
      draft.groupCommit = on;
      return this;
    }

    /**
     * This writer's certificate (from an operator, {@code rafestore certify}): it must name this
     * writer's id and public key. The client stores it on the clouds before its first write and
     * refuses to write outside its validity period ({@link WriterTrustException}).
     */
    public Builder writerCertificate(WriterCertificate certificate) {
      draft.writerCertificate = certificate;
      return this;
    }

    /**
     * How old the revocation lists and the set of certified writers a read relies on may be
     * (default 1 minute; zero to 1 day; zero reads them on every operation): the bound on how long
     * after a revocation completed this client can still accept the revoked writer's new writes.
     */
    public Builder trustRefresh(Duration refresh) {
      draft.trustRefresh = refresh;
      return this;
    }

    /**
     * How readM learns which writers have a log for a key (default {@link WriterDiscovery#AUTO}:
     * one GET per trusted writer per cloud for up to {@value WriterDiscovery#AUTO_PER_WRITER_MAX}
     * trusted writers and no {@link #trustOperator} key, else one listing of the key's logs per
     * cloud and GETs of the writers it names). Every choice returns the same results and only the
     * requests differ, except that {@link WriterDiscovery#PER_WRITER} with operator keys reads a
     * newly certified writer only from the next {@link #trustRefresh} on.
     */
    public Builder writerDiscovery(WriterDiscovery discovery) {
      draft.writerDiscovery = discovery;
      return this;
    }

    /**
     * A local write-back journal (default none): enables {@link RafeStore#writeBack}, which
     * acknowledges a write once it is fsynced there and writes it to the clouds in the background.
     * The client replays the journal when it is built: writes a crashed predecessor (same
     * directory, same writer id and key) acknowledged are written to the clouds, each exactly once.
     * One client at a time may use a directory. Needs a {@link #writer}, {@link ProtocolMode#PAPER}
     * or {@link ProtocolMode#FAST}, and not {@link #encryptValues} (not supported yet: the key
     * shares of a sealed value would have to be journaled too).
     *
     * <p>{@link #build()} opens the journal and throws {@link java.io.UncheckedIOException} around
     * a {@link JournalException} (naming the path and cause) if the directory cannot be created or
     * written (read-only, full) or holds a corrupt record that is not the torn tail of a crash.
     */
    public Builder writeBack(WriteBack writeBack) {
      draft.writeBack = Objects.requireNonNull(writeBack, "writeBack");
      return this;
    }

    /**
     * Fair scheduling of requests among tenants (default {@link Fairness#off()}: none, at no cost).
     */
    public Builder fairness(Fairness fairness) {
      draft.fairness = Objects.requireNonNull(fairness, "fairness");
      return this;
    }

    /**
     * The share of {@code tenant} at each cloud when {@link #fairness} is on (tenants without one
     * get {@link TenantShare#DEFAULT}, weight 1). The tenant id is checked here.
     *
     * @throws IllegalArgumentException naming the bad tenant id
     */
    public Builder tenant(String tenant, TenantShare share) {
      io.rafestore.internal.util.Names.checkTenant(tenant);
      draft.tenants.put(tenant, Objects.requireNonNull(share, "share of tenant " + tenant));
      return this;
    }

    /** Whether {@link RafeStore#close()} closes the drivers (default true). */
    public Builder closeDrivers(boolean close) {
      draft.closeDrivers = close;
      return this;
    }

    /**
     * Validates every setting and builds the client.
     *
     * @throws IllegalArgumentException naming the first invalid setting and what is accepted
     * @throws java.io.UncheckedIOException around a {@link JournalException} if the {@link
     *     #writeBack} journal cannot be opened
     */
    public RafeStore build() {
      Settings settings = Settings.validate(draft);
      return new Client(settings, draft.writeBack);
    }
  }
}
