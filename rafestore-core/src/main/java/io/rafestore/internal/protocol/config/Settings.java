package io.rafestore.internal.protocol.config;

import io.rafestore.CloudRole;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStoreListener;
import io.rafestore.Scheduler;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.CloudDriver;
import java.security.KeyPair;
import java.security.PublicKey;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;

/**
 * The validated, immutable configuration of a client. All checks of {@code RafeStore.Builder} live
 * here, in one place, each failing with a message that names the setting and the accepted range.
 */
public record Settings(
    List<CloudSetting> clouds,
    int f,
    String writerId,
    KeyPair writerKeys,
    Map<String, PublicKey> trustedWriters,
    ProtocolMode mode,
    Executor executor,
    Scheduler scheduler,
    Clock clock,
    RafeStoreListener listener,
    long maxValueBytes,
    int maxMetadataBytes,
    Duration operationTimeout,
    boolean closeDrivers,
    boolean dataOrderAsAdded,
    boolean encryptValues,
    int erasureK,
    long partSize,
    int partsInFlight,
    java.security.Provider signatureProvider,
    long speculativeReadLimit,
    Duration closeGrace,
    io.rafestore.Layout layout,
    io.rafestore.Objective objective,
    long inlineThreshold,
    long inlineLogBudget,
    Map<String, io.rafestore.Pricing> pricing,
    io.rafestore.ValueCache valueCache,
    io.rafestore.Prefetch prefetch,
    Duration maxStaleness,
    Map<String, PublicKey> operators,
    io.rafestore.WriterCertificate writerCertificate,
    Duration trustRefresh,
    boolean groupCommit,
    io.rafestore.WriterDiscovery writerDiscovery,
    io.rafestore.Fairness fairness,
    Map<String, io.rafestore.TenantShare> tenants) {

  /** The default {@link #trustRefresh}: how old a reader's revocation lists may be. */
  public static final Duration DEFAULT_TRUST_REFRESH = Duration.ofMinutes(1);

  /** Most operator keys a client trusts. */
  public static final int MAX_OPERATORS = 16;

  /**
   * Whether this client is the only writer any reader of it could trust: exactly one trusted writer
   * (itself) and no operator key, so no certified writer can appear. FAST mode skips readM only
   * then.
   */
  public boolean soleWriter() {
    return trustedWriters.size() == 1 && operators.isEmpty();
  }

  /** The longest accepted {@code maxStaleness}. */
  public static final Duration MAX_STALENESS = Duration.ofDays(1);

  /** Smallest accepted part size. */
  public static final long MIN_PART_SIZE = 1024;

  /** Largest accepted part size. */
  public static final long MAX_PART_SIZE = 1L << 30;

  /** Largest value a byte[] API can carry. */
  public static final long MAX_VALUE_LIMIT = Integer.MAX_VALUE - 8;

  /** One configured cloud. */
  public record CloudSetting(CloudDriver driver, CloudRole role, Duration expectedRtt) {}

  /** n, the number of metadata clouds (every cloud holds metadata). */
  public int n() {
    return clouds.size();
  }

  /** The metadata quorum, n - f. */
  public int quorum() {
    return clouds.size() - f;
  }

  /** What cloud {@code id} charges ({@link io.rafestore.Pricing#DEFAULT} unless set). */
  public io.rafestore.Pricing pricing(String id) {
    return pricing.getOrDefault(id, io.rafestore.Pricing.DEFAULT);
  }

  /**
   * Whether readM lists each cloud's logs of a key ({@link io.rafestore.WriterDiscovery#LISTING})
   * instead of asking for every trusted writer's: as set, or under {@code AUTO} when operator keys
   * are configured (certified writers cannot be enumerated by a reader: asking only for the ones it
   * has seen would miss a writer certified since) or more than {@link
   * io.rafestore.WriterDiscovery#AUTO_PER_WRITER_MAX} writers are trusted explicitly. An explicit
   * {@code PER_WRITER} is kept with operator keys too: readM then asks for the writers the trust
   * knows (certified ones as of its last refresh).
   */
  public boolean listsWriters() {
    return switch (writerDiscovery) {
      case LISTING -> true;
      case PER_WRITER -> false;
      case AUTO ->
          !operators.isEmpty()
              || trustedWriters.size() > io.rafestore.WriterDiscovery.AUTO_PER_WRITER_MAX;
    };
  }

  /** Whether this client may write. */
  public boolean canWrite() {
    return writerId != null;
  }

  /**
   * Whether a read may fetch {@code bytes} bytes before readM decides (an anticipated data fetch).
   * The DepSky baselines never anticipate: their phases are strict barriers.
   */
  public boolean mayAnticipate(long bytes) {
    return speculativeReadLimit > 0 && bytes <= speculativeReadLimit;
  }

  /**
   * Whether a new value of {@code size} bytes ({@code storedSize} once sealed, if it is) is written
   * inline, inside the writer's signed log: in the RafeStore modes, up to {@link #inlineThreshold}
   * bytes, and never a value whose stored bytes alone would exceed {@link #inlineLogBudget}. The
   * one rule of the settings; which layout a write takes is decided in the layout package ({@code
   * Payload.of}), where a per-value chooser can replace it.
   */
  public boolean writesInline(long size, long storedSize) {
    return (mode == ProtocolMode.PAPER || mode == ProtocolMode.FAST)
        && inlineThreshold > 0
        && size <= inlineThreshold
        && storedSize <= inlineLogBudget;
  }

  /**
   * Whether readM asks a cloud whose driver gives tags for a log conditionally (design.md,
   * "Conditional metadata reads"): in the RafeStore modes. The DepSky baselines read as the paper
   * describes them, every log in full, so that they stay the published protocols.
   */
  public boolean conditionalLogGets() {
    return mode == ProtocolMode.PAPER || mode == ProtocolMode.FAST;
  }

  /**
   * Bytes of older inline values (every inline value of a log but its newest) above which the
   * writer packs them in the background: at most {@link #PACK_TRIGGER} (4 KiB), so a read, which
   * downloads the log from n - f clouds, carries little besides the newest value; and at most the
   * room the budget leaves beside a value at the threshold, so packing starts before a write has to
   * wait for it.
   */
  public long inlinePackTrigger() {
    return Math.max(0, Math.min(PACK_TRIGGER, inlineLogBudget - inlineThreshold));
  }

  /** See {@link #inlinePackTrigger()}. */
  public static final long PACK_TRIGGER = 4 * 1024;

  /**
   * Whether a value of {@code size} bytes is sent in parts under these settings: every value above
   * the part size, whole copies or coded (each part coded on its own), sealed or not (each part
   * sealed on its own).
   */
  public boolean needsParts(long size) {
    return size > partSize();
  }

  /** Whether the client chooses each new value's layout ({@link io.rafestore.Layout#AUTO}). */
  public boolean choosesLayout() {
    return layout == io.rafestore.Layout.AUTO;
  }

  /**
   * The builder's raw, unvalidated settings, set one by one by name and handed whole to {@link
   * #validate(Draft)}. Its initial values are the defaults {@code RafeStore.Builder} documents. A
   * mutable holder owned by one builder: not thread-safe, and never kept by the client.
   */
  public static final class Draft {
    /** The clouds in the order they were added. */
    public final List<CloudSetting> clouds = new ArrayList<>();

    /** Trusted writers' public keys by writer id, in the order they were trusted. */
    public final Map<String, PublicKey> trusted = new LinkedHashMap<>();

    public int f = 1;
    public String writerId;
    public KeyPair writerKeys;
    public ProtocolMode mode = ProtocolMode.PAPER;

    /** Null for the JVM-wide default pool. */
    public Executor executor;

    public Scheduler scheduler = Scheduler.system();
    public Clock clock = Clock.systemUTC();
    public RafeStoreListener listener = RafeStoreListener.NONE;
    public long maxValueBytes = 64L * 1024 * 1024;
    public int maxMetadataBytes = 8 * 1024 * 1024;
    public Duration operationTimeout = Duration.ofMinutes(5);
    public boolean closeDrivers = true;
    public boolean dataOrderAsAdded;
    public boolean encryptValues;
    public int erasureK;
    public long partSize = 8L * 1024 * 1024;
    public int partsInFlight = 4;

    /** Largest anticipated data fetch of a read, in bytes; 0 turns anticipation off. */
    public long speculativeReadLimit = 8L * 1024 * 1024;

    /** Whether the user set {@link #speculativeReadLimit} (the cost objective lowers it if not). */
    public boolean speculativeReadLimitSet;

    /** How new values are laid out: one fixed way, or chosen per value. */
    public io.rafestore.Layout layout = io.rafestore.Layout.FIXED;

    /** What the layout chooser (and the anticipated-read limit) minimise. */
    public io.rafestore.Objective objective = io.rafestore.Objective.latency();

    /** Null for the default Ed25519 (BouncyCastle's, without JCA). */
    public java.security.Provider signatureProvider;

    /** How long close() waits for writeM's puts still running after their quorum; 0: none. */
    public Duration closeGrace = Duration.ZERO;

    /** Largest value written inline, inside the signed log (PAPER, FAST); 0 turns it off. */
    public long inlineThreshold = 64L * 1024;

    /** Most stored bytes of inline values one writer's log of one key may hold. */
    public long inlineLogBudget = 128L * 1024;

    /** Prices by cloud id, in the order they were set; clouds without one get the default. */
    public final Map<String, io.rafestore.Pricing> pricing = new LinkedHashMap<>();

    public io.rafestore.ValueCache valueCache;

    public io.rafestore.Prefetch prefetch = io.rafestore.Prefetch.off();

    public Duration maxStaleness = Duration.ZERO;

    /** Trusted operator keys by key id, in the order they were trusted. */
    public final Map<String, PublicKey> operators = new LinkedHashMap<>();

    /** This writer's certificate, or null. */
    public io.rafestore.WriterCertificate writerCertificate;

    /** How old the revocation lists and certified writers a read relies on may be. */
    public Duration trustRefresh = DEFAULT_TRUST_REFRESH;

    /** Whether concurrent inline writes of one key share one writeM round (group commit). */
    public boolean groupCommit = true;

    /** How readM finds the writers of a key. */
    public io.rafestore.WriterDiscovery writerDiscovery = io.rafestore.WriterDiscovery.AUTO;

    /** Fair scheduling among tenants. */
    public io.rafestore.Fairness fairness = io.rafestore.Fairness.off();

    /** Tenants' shares by id, in the order they were set. */
    public final Map<String, io.rafestore.TenantShare> tenants = new LinkedHashMap<>();

    /** The write-back journal; null for none. Handed to the client beside the settings. */
    public io.rafestore.WriteBack writeBack;
  }

  /**
   * The write-back journal's rules that depend on other settings (its own ranges are checked by
   * {@link io.rafestore.WriteBack}'s withers): a writer, a RafeStore mode, no sealed values.
   */
  private static void writeBack(Draft draft, ProtocolMode mode) {
    if (draft.writeBack == null) {
      return;
    }
    if (draft.writerId == null) {
      throw new IllegalArgumentException("writeBack: needs a writer identity (set writer)");
    }
    if (mode != ProtocolMode.PAPER && mode != ProtocolMode.FAST) {
      throw new IllegalArgumentException(
          "writeBack: needs mode PAPER or FAST; " + mode + " is a baseline without write-back");
    }
    if (draft.encryptValues) {
      throw new IllegalArgumentException(
          "writeBack: not supported with encryptValues yet (the key shares of a sealed value would"
              + " have to be journaled as well)");
    }
  }

  /**
   * Validates the builder's raw settings, in one place, and returns them immutable. The draft is
   * only read.
   *
   * @throws IllegalArgumentException naming the first invalid setting and what is accepted
   */
  public static Settings validate(Draft draft) {
    // Locals with the draft's values, so that each check below reads as the rule it states.
    List<CloudSetting> clouds = draft.clouds;
    int f = draft.f;
    String writerId = draft.writerId;
    KeyPair writerKeys = draft.writerKeys;
    Map<String, PublicKey> trusted = draft.trusted;
    ProtocolMode mode = draft.mode;
    Scheduler scheduler = draft.scheduler;
    Clock clock = draft.clock;
    RafeStoreListener listener = draft.listener;
    long maxValueBytes = draft.maxValueBytes;
    int maxMetadataBytes = draft.maxMetadataBytes;
    Duration operationTimeout = draft.operationTimeout;
    boolean encryptValues = draft.encryptValues;
    int erasureK = draft.erasureK;
    long partSize = draft.partSize;
    int partsInFlight = draft.partsInFlight;
    java.security.Provider signatureProvider = draft.signatureProvider;
    if (partSize < MIN_PART_SIZE || partSize > MAX_PART_SIZE) {
      throw new IllegalArgumentException(
          "partSize must be " + MIN_PART_SIZE + " to " + MAX_PART_SIZE + " bytes, was " + partSize);
    }
    long speculativeReadLimit = draft.speculativeReadLimit;
    io.rafestore.Objective objective = draft.objective;
    if (objective == null) {
      throw new IllegalArgumentException(
          "objective must not be null (Objective.latency(), cost() or weighted(usdPerSecond))");
    }
    if (objective.isCost() && !draft.speculativeReadLimitSet) {
      // A wasted anticipated fetch costs its egress: a cost-minded client bounds it, unless the
      // user chose a limit.
      speculativeReadLimit =
          Math.min(speculativeReadLimit, io.rafestore.Objective.COST_SPECULATIVE_READ_LIMIT);
    }
    if (speculativeReadLimit < 0) {
      throw new IllegalArgumentException(
          "speculativeReadLimit must be >= 0 bytes (0 turns anticipated reads off), was "
              + speculativeReadLimit);
    }
    if (partsInFlight < 1 || partsInFlight > 64) {
      throw new IllegalArgumentException("partsInFlight must be 1 to 64, was " + partsInFlight);
    }
    if (f < 1) {
      throw new IllegalArgumentException(
          "faultsTolerated (f) must be >= 1, was "
              + f
              + " (RafeStore tolerates f Byzantine clouds)");
    }
    if (f > 85) {
      throw new IllegalArgumentException("faultsTolerated (f) must be <= 85, was " + f);
    }
    int needed = 3 * f + 1;
    if (clouds.size() < needed) {
      throw new IllegalArgumentException(
          "clouds: f=" + f + " needs at least 3f+1 = " + needed + " clouds, got " + clouds.size());
    }
    Set<String> ids = new HashSet<>();
    int dataClouds = 0;
    for (int i = 0; i < clouds.size(); i++) {
      CloudSetting c = clouds.get(i);
      if (c.driver() == null) {
        throw new IllegalArgumentException("clouds[" + i + "]: driver must not be null");
      }
      if (c.role() == null) {
        throw new IllegalArgumentException(
            "clouds[" + i + "] (" + c.driver().id() + "): role must not be null");
      }
      String id = c.driver().id();
      if (id == null || id.isBlank()) {
        throw new IllegalArgumentException("clouds[" + i + "]: driver id must not be blank");
      }
      try {
        Names.checkWriterId(id);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "clouds[" + i + "]: cloud id '" + id + "' must be 1-64 characters of A-Z a-z 0-9 - _",
            e);
      }
      if (!ids.add(id)) {
        throw new IllegalArgumentException("clouds: cloud id '" + id + "' is used twice");
      }
      if (c.expectedRtt() != null && c.expectedRtt().isNegative()) {
        throw new IllegalArgumentException(
            "clouds[" + i + "] (" + id + "): expected RTT must be >= 0, was " + c.expectedRtt());
      }
      if (c.role().holdsData()) {
        dataClouds++;
      }
    }
    if (dataClouds < 2 * f + 1) {
      throw new IllegalArgumentException(
          "clouds: f="
              + f
              + " needs at least 2f+1 = "
              + (2 * f + 1)
              + " data clouds (f+1 for writeDo plus f extras for writeDf), got "
              + dataClouds);
    }
    Map<String, PublicKey> trustedCopy = new LinkedHashMap<>();
    for (Map.Entry<String, PublicKey> e : trusted.entrySet()) {
      try {
        Names.checkWriterId(e.getKey());
      } catch (IllegalArgumentException ex) {
        throw new IllegalArgumentException("trustWriter: " + ex.getMessage(), ex);
      }
      if (e.getValue() == null) {
        throw new IllegalArgumentException("trustWriter(" + e.getKey() + "): public key is null");
      }
      checkEd25519(e.getValue().getAlgorithm(), "trustWriter(" + e.getKey() + ")");
      trustedCopy.put(e.getKey(), e.getValue());
    }
    if (writerId != null || writerKeys != null) {
      if (writerId == null) {
        throw new IllegalArgumentException("writer: id must not be null");
      }
      try {
        Names.checkWriterId(writerId);
      } catch (IllegalArgumentException ex) {
        throw new IllegalArgumentException("writer: " + ex.getMessage(), ex);
      }
      if (writerKeys == null || writerKeys.getPrivate() == null || writerKeys.getPublic() == null) {
        throw new IllegalArgumentException(
            "writer(" + writerId + "): signing key pair is missing (use SigningKeys.generate())");
      }
      checkEd25519(writerKeys.getPrivate().getAlgorithm(), "writer(" + writerId + ")");
      PublicKey already = trustedCopy.get(writerId);
      if (already != null && !already.equals(writerKeys.getPublic())) {
        throw new IllegalArgumentException(
            "trustWriter(" + writerId + "): trusts a different public key than the writer's own");
      }
      trustedCopy.put(writerId, writerKeys.getPublic());
    }
    Map<String, PublicKey> operators = trust(draft, writerId, writerKeys);
    if (trustedCopy.isEmpty() && operators.isEmpty()) {
      throw new IllegalArgumentException(
          "writer/trustWriter: no writer identity and no trusted writer (nor an operator key,"
              + " trustOperator); a client must trust at least one writer's or operator's public"
              + " key to verify metadata");
    }
    if (trustedCopy.size() > 1024) {
      throw new IllegalArgumentException(
          "trustWriter: at most 1024 trusted writers, got " + trustedCopy.size());
    }
    if (mode == null) {
      throw new IllegalArgumentException("mode must not be null");
    }
    if (encryptValues && mode == ProtocolMode.DEPSKY_A) {
      throw new IllegalArgumentException(
          "encryptValues: mode DEPSKY_A is the plaintext baseline; use DEPSKY_CA (which always"
              + " encrypts) or a RafeStore mode (PAPER, FAST)");
    }
    if (erasureK != 0) {
      if (mode != ProtocolMode.PAPER && mode != ProtocolMode.FAST) {
        throw new IllegalArgumentException(
            "erasureCoding: only the RafeStore modes (PAPER, FAST) code their data; mode was "
                + mode);
      }
      if (erasureK < 2) {
        throw new IllegalArgumentException(
            "erasureCoding: k must be >= 2 (k = 1 is plain replication), was " + erasureK);
      }
      if (erasureK + f > dataClouds) {
        throw new IllegalArgumentException(
            "erasureCoding: k + f = "
                + (erasureK + f)
                + " fragments need as many data clouds, only "
                + dataClouds
                + " hold data");
      }
    }
    io.rafestore.Layout layout = draft.layout;
    if (layout == null) {
      throw new IllegalArgumentException("layout must not be null (Layout.FIXED or Layout.AUTO)");
    }
    if (layout == io.rafestore.Layout.AUTO) {
      if (mode != ProtocolMode.PAPER && mode != ProtocolMode.FAST) {
        throw new IllegalArgumentException(
            "layout AUTO: only the RafeStore modes (PAPER, FAST) choose a layout per value; mode"
                + " was "
                + mode);
      }
      if (erasureK != 0) {
        throw new IllegalArgumentException(
            "layout AUTO chooses each value's layout, erasureCoding("
                + erasureK
                + ") fixes it: set one of them");
      }
    }
    if (scheduler == null) {
      throw new IllegalArgumentException("scheduler must not be null");
    }
    if (clock == null) {
      throw new IllegalArgumentException("clock must not be null");
    }
    if (listener == null) {
      throw new IllegalArgumentException("listener must not be null (use RafeStoreListener.NONE)");
    }
    if (maxValueBytes < 1 || maxValueBytes > MAX_VALUE_LIMIT) {
      throw new IllegalArgumentException(
          "maxValueBytes must be 1 to " + MAX_VALUE_LIMIT + ", was " + maxValueBytes);
    }
    if (maxMetadataBytes < 1024 || maxMetadataBytes > 256 * 1024 * 1024) {
      throw new IllegalArgumentException(
          "maxMetadataBytes must be 1 KiB to 256 MiB, was " + maxMetadataBytes);
    }
    if (operationTimeout == null || operationTimeout.isNegative() || operationTimeout.isZero()) {
      throw new IllegalArgumentException(
          "operationTimeout must be positive, was " + operationTimeout);
    }
    long inlineThreshold = draft.inlineThreshold;
    long inlineLogBudget = draft.inlineLogBudget;
    // Every inline byte is in a log that readers fetch with a bound of maxMetadataBytes: half of
    // it for inline values leaves the other half to the entries of a long history.
    long maxBudget = maxMetadataBytes / 2;
    if (inlineLogBudget < 0 || inlineLogBudget > maxBudget) {
      throw new IllegalArgumentException(
          "inlineLogBudget must be 0 to maxMetadataBytes / 2 = "
              + maxBudget
              + " bytes, was "
              + inlineLogBudget);
    }
    if (inlineThreshold < 0 || inlineThreshold > inlineLogBudget) {
      throw new IllegalArgumentException(
          "inlineThreshold must be 0 (no inline values) to inlineLogBudget = "
              + inlineLogBudget
              + " bytes, was "
              + inlineThreshold);
    }
    Duration closeGrace = draft.closeGrace;
    if (closeGrace == null || closeGrace.isNegative()) {
      throw new IllegalArgumentException("closeGrace must be zero or positive, was " + closeGrace);
    }
    if (signatureProvider == null) {
      // The default Ed25519 (BouncyCastle's, on raw keys) decodes each key once: a key it cannot
      // use is refused here, naming the setting, not on the first write or read.
      for (Map.Entry<String, PublicKey> e : trustedCopy.entrySet()) {
        checkKey(e.getValue(), "trustWriter(" + e.getKey() + ")");
      }
      if (writerKeys != null) {
        checkKey(writerKeys.getPrivate(), "writer(" + writerId + ")");
      }
    } else {
      // Every key is translated once into the provider's own key class: a provider's Signature
      // may refuse another provider's key objects, and per-operation translation would cost
      // what the faster provider saves.
      java.security.KeyFactory kf;
      try {
        kf = java.security.KeyFactory.getInstance("Ed25519", signatureProvider);
        java.security.Signature.getInstance("Ed25519", signatureProvider);
      } catch (java.security.GeneralSecurityException ex) {
        throw new IllegalArgumentException(
            "signatureProvider: " + signatureProvider.getName() + " has no Ed25519: " + ex, ex);
      }
      for (Map.Entry<String, PublicKey> e : trustedCopy.entrySet()) {
        e.setValue(
            translate(
                kf,
                e.getValue(),
                new java.security.spec.X509EncodedKeySpec(e.getValue().getEncoded()),
                "trustWriter(" + e.getKey() + ")"));
      }
      if (writerKeys != null) {
        writerKeys =
            new KeyPair(
                trustedCopy.get(writerId),
                translate(
                    kf,
                    writerKeys.getPrivate(),
                    new java.security.spec.PKCS8EncodedKeySpec(
                        writerKeys.getPrivate().getEncoded()),
                    "writer(" + writerId + ")"));
      }
    }
    readTier(draft, mode, partSize);
    writeBack(draft, mode);
    // The one construction of Settings: every component checked above.
    return new Settings(
        List.copyOf(new ArrayList<>(clouds)),
        f,
        writerId,
        writerKeys,
        Map.copyOf(trustedCopy),
        mode,
        draft.executor == null ? io.rafestore.internal.util.DefaultExecutor.get() : draft.executor,
        scheduler,
        clock,
        listener,
        maxValueBytes,
        maxMetadataBytes,
        operationTimeout,
        draft.closeDrivers,
        draft.dataOrderAsAdded,
        encryptValues && (mode == ProtocolMode.PAPER || mode == ProtocolMode.FAST),
        erasureK,
        partSize,
        partsInFlight,
        signatureProvider,
        mode == ProtocolMode.PAPER || mode == ProtocolMode.FAST ? speculativeReadLimit : 0,
        closeGrace,
        layout,
        objective,
        mode == ProtocolMode.PAPER || mode == ProtocolMode.FAST ? inlineThreshold : 0,
        inlineLogBudget,
        pricing(draft, ids),
        draft.valueCache,
        draft.prefetch,
        draft.maxStaleness,
        operators,
        draft.writerCertificate,
        draft.trustRefresh,
        draft.groupCommit,
        writerDiscovery(draft.writerDiscovery),
        draft.fairness,
        Map.copyOf(draft.tenants));
  }

  /** The share of {@code tenant}: as set, else {@link io.rafestore.TenantShare#DEFAULT}. */
  public io.rafestore.TenantShare share(String tenant) {
    return tenants.getOrDefault(tenant, io.rafestore.TenantShare.DEFAULT);
  }

  /**
   * The operator keys, the writer's certificate and the refresh interval: each operator key id is a
   * valid id and its key Ed25519 (and usable by the default signer); a writer's certificate names
   * this writer and certifies its key (its signature and period are checked when it is used: the
   * writer need not trust the operator, and a certificate may start or end while the client runs).
   */
  private static Map<String, PublicKey> trust(Draft draft, String writerId, KeyPair writerKeys) {
    Map<String, PublicKey> ops = new LinkedHashMap<>();
    for (Map.Entry<String, PublicKey> e : draft.operators.entrySet()) {
      String setting = "trustOperator(" + e.getKey() + ")";
      try {
        Names.checkWriterId(e.getKey());
      } catch (IllegalArgumentException ex) {
        throw new IllegalArgumentException(
            "trustOperator: key id: " + ex.getMessage().replace("writer id", "id"), ex);
      }
      if (e.getValue() == null) {
        throw new IllegalArgumentException(setting + ": public key is null");
      }
      checkEd25519(e.getValue().getAlgorithm(), setting);
      checkKey(e.getValue(), setting);
      ops.put(e.getKey(), e.getValue());
    }
    if (ops.size() > MAX_OPERATORS) {
      throw new IllegalArgumentException(
          "trustOperator: at most " + MAX_OPERATORS + " operator keys, got " + ops.size());
    }
    io.rafestore.WriterCertificate cert = draft.writerCertificate;
    if (cert != null) {
      if (writerId == null || writerKeys == null) {
        throw new IllegalArgumentException(
            "writerCertificate: needs a writer identity (Builder.writer) to certify");
      }
      if (!cert.writerId().equals(writerId)) {
        throw new IllegalArgumentException(
            "writerCertificate: certifies writer '"
                + cert.writerId()
                + "', this client writes as '"
                + writerId
                + "' (WRONG_WRITER)");
      }
      if (!cert.certifies(writerKeys.getPublic())) {
        throw new IllegalArgumentException(
            "writerCertificate: certifies another public key than writer("
                + writerId
                + ")'s own (WRONG_KEY)");
      }
      PublicKey op = ops.get(cert.operatorKeyId());
      if (op != null) {
        try {
          cert.verify(ops);
        } catch (io.rafestore.WriterTrustException ex) {
          throw new IllegalArgumentException("writerCertificate: " + ex.getMessage(), ex);
        }
      }
    }
    Duration refresh = draft.trustRefresh;
    if (refresh == null || refresh.isNegative() || refresh.compareTo(Duration.ofDays(1)) > 0) {
      throw new IllegalArgumentException(
          "trustRefresh must be zero (read on every operation) to 1 day, was " + refresh);
    }
    return Map.copyOf(ops);
  }

  private static io.rafestore.WriterDiscovery writerDiscovery(io.rafestore.WriterDiscovery d) {
    if (d == null) {
      throw new IllegalArgumentException(
          "writerDiscovery must not be null (AUTO, PER_WRITER or LISTING)");
    }
    return d;
  }

  /** The read tier's settings: the cache, prefetching and the staleness bound. */
  private static void readTier(Draft draft, ProtocolMode mode, long partSize) {
    if (draft.valueCache != null && mode != ProtocolMode.PAPER && mode != ProtocolMode.FAST) {
      throw new IllegalArgumentException(
          "valueCache: only the RafeStore modes (PAPER, FAST) read through a cache; mode "
              + mode
              + " is a baseline that reads every value from the clouds");
    }
    io.rafestore.Prefetch p = draft.prefetch;
    if (p == null) {
      throw new IllegalArgumentException("prefetch must not be null (use Prefetch.off())");
    }
    if (p.mode() != io.rafestore.Prefetch.Mode.OFF && draft.valueCache == null) {
      throw new IllegalArgumentException(
          "prefetch "
              + p.mode()
              + " needs a valueCache: prefetched bytes are kept there (or use Prefetch.off())");
    }
    if (p.maxInFlight() < 1 || p.maxInFlight() > 64) {
      throw new IllegalArgumentException(
          "prefetch maxInFlight must be 1 to 64, was " + p.maxInFlight());
    }
    if (p.maxBytesInFlight() < partSize) {
      throw new IllegalArgumentException(
          "prefetch maxBytesInFlight must be at least partSize = "
              + partSize
              + " bytes (one part), was "
              + p.maxBytesInFlight());
    }
    if (!(p.dollarsPerHour() >= 0) || Double.isInfinite(p.dollarsPerHour())) {
      throw new IllegalArgumentException(
          "prefetch dollarsPerHour must be a finite number >= 0 (0 stops prefetching), was "
              + p.dollarsPerHour());
    }
    if (p.graphNodes() < 16 || p.graphNodes() > 10_000_000) {
      throw new IllegalArgumentException(
          "prefetch graphNodes must be 16 to 10000000, was " + p.graphNodes());
    }
    if (!(p.minProbability() > 0) || p.minProbability() > 1) {
      throw new IllegalArgumentException(
          "prefetch minProbability must be in (0, 1], was " + p.minProbability());
    }
    checkStaleness(draft.maxStaleness, "maxStaleness");
  }

  /**
   * Checks a staleness bound ({@code Builder.maxStaleness}, or one read's): zero (off) to {@link
   * #MAX_STALENESS}.
   */
  public static void checkStaleness(Duration d, String setting) {
    if (d == null || d.isNegative() || d.compareTo(MAX_STALENESS) > 0) {
      throw new IllegalArgumentException(
          setting + " must be zero (regular reads) to " + MAX_STALENESS + ", was " + d);
    }
  }

  /** The prices the draft sets, each for a configured cloud. */
  private static Map<String, io.rafestore.Pricing> pricing(Draft draft, Set<String> ids) {
    for (Map.Entry<String, io.rafestore.Pricing> e : draft.pricing.entrySet()) {
      if (!ids.contains(e.getKey())) {
        throw new IllegalArgumentException(
            "pricing: no cloud has id '" + e.getKey() + "' (configured: " + ids + ")");
      }
      if (e.getValue() == null) {
        throw new IllegalArgumentException("pricing of " + e.getKey() + " must not be null");
      }
    }
    return Map.copyOf(draft.pricing);
  }

  @SuppressWarnings("unchecked")
  private static <K extends java.security.Key> K translate(
      java.security.KeyFactory kf, K key, java.security.spec.KeySpec spec, String setting) {
    try {
      return (K) (key instanceof PublicKey ? kf.generatePublic(spec) : kf.generatePrivate(spec));
    } catch (java.security.GeneralSecurityException | RuntimeException ex) {
      throw new IllegalArgumentException(
          setting + ": the signature provider cannot use this key: " + ex, ex);
    }
  }

  private static void checkKey(java.security.Key key, String setting) {
    try {
      io.rafestore.internal.codec.Signatures.fast().check(key);
    } catch (IllegalArgumentException ex) {
      throw new IllegalArgumentException(setting + ": " + ex.getMessage(), ex);
    }
  }

  private static void checkEd25519(String algorithm, String setting) {
    if (!"Ed25519".equalsIgnoreCase(algorithm) && !"EdDSA".equalsIgnoreCase(algorithm)) {
      throw new IllegalArgumentException(
          setting + ": key must be Ed25519, was " + algorithm + " (use SigningKeys.generate())");
    }
  }
}
