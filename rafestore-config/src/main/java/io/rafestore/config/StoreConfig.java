package io.rafestore.config;

import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.clouds.Drivers;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.DriverProvider;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A validated RafeStore configuration: the clouds, f, the protocol mode, this client's writer key
 * and the writers it trusts. Read from a file with {@link #load(Path)}; turned into a client with
 * {@link #open()}.
 *
 * <p>The file format (one {@code key = value} per line, {@code #} comments; every key is described
 * in {@code docs/cli.md}):
 *
 * <pre>
 * f = 1
 * mode = PAPER
 * writer.id = alice
 * writer.key = alice.key
 * trusted.bob = bob.pub
 * cloud.minio.type = s3
 * cloud.minio.endpoint = http://127.0.0.1:19000
 * cloud.minio.bucket = rafestore
 * cloud.minio.credentials = env:RAFESTORE_S3_CREDENTIALS
 * cloud.minio.option.pathStyle = true
 * cloud.redis.type = redis
 * cloud.redis.role = METADATA_ONLY
 * ...
 * </pre>
 *
 * Relative paths (key files, {@code directory} clouds' {@code bucket}) are resolved against the
 * directory of the configuration file. Secrets are never written in the file: {@code credentials}
 * takes only a reference ({@code env:NAME}, or for type {@code s3} {@code profile:NAME}, a profile
 * of the shared AWS files) or is left out for the SDK's default chain, and the parser rejects
 * values that look like inline secrets. Every error is a {@link ConfigException} naming the file,
 * the line and the key.
 *
 * <p>Immutable and thread-safe. {@link #open()} creates new drivers each time it is called.
 */
public final class StoreConfig {
  private final String source;
  private final int faultsTolerated;
  private final ProtocolMode mode;
  private final List<CloudConfig> clouds;
  private final Optional<KeyFiles.WriterKey> writer;
  private final Map<String, PublicKey> trustedWriters;
  private final Optional<Duration> operationTimeout;
  private final OptionalLong maxValueBytes;
  private final boolean dataCloudsInOrderAdded;
  private final boolean encryptValues;
  private final int erasureCodingK;
  private final OptionalLong partSize;
  private final OptionalInt partsInFlight;
  private final OptionalLong speculativeReadLimit;
  private final io.rafestore.Layout layout;
  private final Optional<io.rafestore.Objective> objective;
  private final OptionalLong inlineThreshold;
  private final OptionalLong inlineLogBudget;
  private final boolean groupCommit;
  private final Optional<io.rafestore.WriteBack> writeBack;
  // (cloud id + "." + field) -> line, to name the line of a field when a driver rejects it.
  private final Map<String, Integer> cloudFieldLines;
  private final Map<String, PublicKey> operators;
  private final Optional<io.rafestore.WriterCertificate> writerCertificate;
  private final Optional<Duration> trustRefresh;
  private final Optional<io.rafestore.WriterDiscovery> writerDiscovery;
  private final io.rafestore.Fairness fairness;
  private final Map<String, io.rafestore.TenantShare> tenants;

  /** Fair scheduling among tenants ({@code fairness = on|off} and {@code fairness.*}). */
  public io.rafestore.Fairness fairness() {
    return fairness;
  }

  /** The tenants' shares ({@code tenant.<id>.weight|reservation|limit}), in file order. */
  public Map<String, io.rafestore.TenantShare> tenants() {
    return tenants;
  }

  StoreConfig(
      String source,
      int faultsTolerated,
      ProtocolMode mode,
      List<CloudConfig> clouds,
      Optional<KeyFiles.WriterKey> writer,
      Map<String, PublicKey> trustedWriters,
      Optional<Duration> operationTimeout,
      OptionalLong maxValueBytes,
      boolean dataCloudsInOrderAdded,
      boolean encryptValues,
      int erasureCodingK,
      OptionalLong partSize,
      OptionalInt partsInFlight,
      OptionalLong speculativeReadLimit,
      io.rafestore.Layout layout,
      Optional<io.rafestore.Objective> objective,
      OptionalLong inlineThreshold,
      OptionalLong inlineLogBudget,
      boolean groupCommit,
      Optional<io.rafestore.WriteBack> writeBack,
      Map<String, Integer> cloudFieldLines,
      Map<String, PublicKey> operators,
      Optional<io.rafestore.WriterCertificate> writerCertificate,
      Optional<Duration> trustRefresh,
      Optional<io.rafestore.WriterDiscovery> writerDiscovery,
      io.rafestore.Fairness fairness,
      Map<String, io.rafestore.TenantShare> tenants) {
    this.fairness = fairness;
    this.tenants = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(tenants));
    this.groupCommit = groupCommit;
    this.writeBack = writeBack;
    this.writerDiscovery = writerDiscovery;
    this.operators = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(operators));
    this.writerCertificate = writerCertificate;
    this.trustRefresh = trustRefresh;
    this.layout = layout;
    this.objective = objective;
    this.source = source;
    this.faultsTolerated = faultsTolerated;
    this.mode = mode;
    this.clouds = List.copyOf(clouds);
    this.writer = writer;
    this.trustedWriters =
        java.util.Collections.unmodifiableMap(new LinkedHashMap<>(trustedWriters));
    this.operationTimeout = operationTimeout;
    this.maxValueBytes = maxValueBytes;
    this.dataCloudsInOrderAdded = dataCloudsInOrderAdded;
    this.encryptValues = encryptValues;
    this.erasureCodingK = erasureCodingK;
    this.partSize = partSize;
    this.partsInFlight = partsInFlight;
    this.speculativeReadLimit = speculativeReadLimit;
    this.inlineThreshold = inlineThreshold;
    this.inlineLogBudget = inlineLogBudget;
    this.cloudFieldLines = Map.copyOf(cloudFieldLines);
  }

  /**
   * Reads and validates a configuration file, and the key files it names.
   *
   * @throws ConfigException naming the file, line and key of the first problem
   * @throws java.nio.file.NoSuchFileException if the file (or a key file) does not exist
   * @throws IOException if it cannot be read
   */
  public static StoreConfig load(Path file) throws IOException {
    Objects.requireNonNull(file, "file");
    String text = Files.readString(file, StandardCharsets.UTF_8);
    Path dir = file.toAbsolutePath().getParent();
    return parse(text, file.toString(), dir == null ? Path.of("") : dir);
  }

  /**
   * Parses configuration text.
   *
   * @param text the file's contents
   * @param source the name used in error messages (usually the file's path)
   * @param baseDirectory what relative paths in the text are relative to
   * @throws ConfigException naming the source, line and key of the first problem
   * @throws IOException if a key file it names cannot be read
   */
  public static StoreConfig parse(String text, String source, Path baseDirectory)
      throws IOException {
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(baseDirectory, "baseDirectory");
    return new ConfigParser(source, baseDirectory, knownDriverTypes()).parse(text);
  }

  /** The driver types available on the class path (through {@link DriverProvider}s), sorted. */
  public static Set<String> knownDriverTypes() {
    Set<String> types = new TreeSet<>();
    for (DriverProvider p :
        ServiceLoader.load(DriverProvider.class, Drivers.class.getClassLoader())) {
      types.add(p.type());
    }
    return java.util.Collections.unmodifiableSet(types);
  }

  /** The file the configuration came from, as named in error messages. */
  public String source() {
    return source;
  }

  /** f, the number of faulty clouds tolerated. */
  public int faultsTolerated() {
    return faultsTolerated;
  }

  /** The protocol mode. */
  public ProtocolMode mode() {
    return mode;
  }

  /** The clouds, in the order the file first mentions them. */
  public List<CloudConfig> clouds() {
    return clouds;
  }

  /** This client's writer id and key pair; empty for a read-only client. */
  public Optional<KeyFiles.WriterKey> writer() {
    return writer;
  }

  /** The trusted operator keys by key id ({@code operator.<id>}). */
  public Map<String, PublicKey> operators() {
    return operators;
  }

  /** This writer's certificate ({@code writer.certificate}), if set. */
  public Optional<io.rafestore.WriterCertificate> writerCertificate() {
    return writerCertificate;
  }

  /** How old the revocation lists a read relies on may be ({@code trustRefresh}), if set. */
  public Optional<Duration> trustRefresh() {
    return trustRefresh;
  }

  /**
   * How readM finds the writers of a key ({@code writerDiscovery}: {@code AUTO}, {@code PER_WRITER}
   * or {@code LISTING}), if set.
   */
  public Optional<io.rafestore.WriterDiscovery> writerDiscovery() {
    return writerDiscovery;
  }

  /** The trusted writers' public keys by writer id (the own writer is trusted implicitly). */
  public Map<String, PublicKey> trustedWriters() {
    return trustedWriters;
  }

  /** The operation timeout, if set (the client's default otherwise). */
  public Optional<Duration> operationTimeout() {
    return operationTimeout;
  }

  /** The largest value accepted, if set (the client's default otherwise). */
  public OptionalLong maxValueBytes() {
    return maxValueBytes;
  }

  /** Whether data clouds are used in the order listed rather than fastest first. */
  public boolean dataCloudsInOrderAdded() {
    return dataCloudsInOrderAdded;
  }

  /**
   * Whether values are encrypted in the RafeStore modes ({@code RafeStore.Builder.encryptValues}).
   */
  public boolean encryptValues() {
    return encryptValues;
  }

  /**
   * k of erasure-coded data ({@code RafeStore.Builder.erasureCoding}), or 0 for whole copies on f+1
   * data clouds.
   */
  public int erasureCodingK() {
    return erasureCodingK;
  }

  /** The part size of large values, if set ({@code RafeStore.Builder.partSize}). */
  public OptionalLong partSize() {
    return partSize;
  }

  /**
   * Parts in flight per upload, read or stream, if set ({@code RafeStore.Builder.partsInFlight}).
   */
  public OptionalInt partsInFlight() {
    return partsInFlight;
  }

  /**
   * The largest anticipated data fetch of a read, in bytes (0: reads do not anticipate), if set
   * ({@code RafeStore.Builder.speculativeReadLimit}).
   */
  public OptionalLong speculativeReadLimit() {
    return speculativeReadLimit;
  }

  /** How new values are laid out ({@code RafeStore.Builder.layout}); FIXED unless set. */
  public io.rafestore.Layout layout() {
    return layout;
  }

  /** What the client minimises, if set ({@code RafeStore.Builder.objective}). */
  public Optional<io.rafestore.Objective> objective() {
    return objective;
  }

  /**
   * The largest value written inline, inside the signed log, in bytes (0: none), if set ({@code
   * RafeStore.Builder.inlineThreshold}).
   */
  public OptionalLong inlineThreshold() {
    return inlineThreshold;
  }

  /**
   * Whether concurrent inline writes of one key share metadata rounds, write-back uploads included
   * ({@code RafeStore.Builder.groupCommit}; {@code groupCommit}, default true).
   */
  public boolean groupCommit() {
    return groupCommit;
  }

  /** The write-back journal ({@code writeBack.*}), if the file sets one. */
  public Optional<io.rafestore.WriteBack> writeBack() {
    return writeBack;
  }

  /**
   * The most inline bytes one writer's log of one key may hold, if set ({@code
   * RafeStore.Builder.inlineLogBudget}).
   */
  public OptionalLong inlineLogBudget() {
    return inlineLogBudget;
  }

  /** Creates the drivers and builds a client. Same as {@code open(b -> {})}. */
  public RafeStore open() throws ConfigException {
    return open(b -> {});
  }

  /**
   * Creates a driver for every cloud and builds a client; the client owns (and closes) the drivers.
   *
   * <p>Returns before the clouds' SDK clients are built: each driver's settings are checked here (a
   * wrong one throws), and its client is built on a thread of its own; until it is, the driver
   * holds the requests sent to it (see {@code DeferredDriver}). So the first operation starts on
   * the clouds whose clients are ready, and one that needs n-f replies (a read) does not wait for
   * the slowest SDK. What a driver can only find out by building its client (an Azure connection
   * string the SDK cannot parse, say) fails that cloud's requests instead, with a {@link
   * io.rafestore.spi.CloudException} naming the cloud whose cause is the {@link ConfigException}.
   * Closing the client does not wait for a build in progress.
   *
   * @param customizer may set what a file does not hold (listener, executor, scheduler) on the
   *     builder before it is built
   * @throws ConfigException if a credentials reference names an unset environment variable, or a
   *     driver rejects its settings (naming the cloud's line and field); drivers created before the
   *     failure are closed
   */
  public RafeStore open(Consumer<RafeStore.Builder> customizer) throws ConfigException {
    Objects.requireNonNull(customizer, "customizer");
    for (CloudConfig c : clouds) {
      checkCredentialsVariable(c);
    }
    List<CloudDriver> made = new ArrayList<>();
    boolean built = false;
    try {
      RafeStore.Builder b =
          RafeStore.builder()
              .faultsTolerated(faultsTolerated)
              .mode(mode)
              .dataCloudsInOrderAdded(dataCloudsInOrderAdded)
              .encryptValues(encryptValues)
              .erasureCoding(erasureCodingK)
              .groupCommit(groupCommit)
              .layout(layout);
      made.addAll(createDrivers());
      for (int i = 0; i < clouds.size(); i++) {
        CloudConfig c = clouds.get(i);
        b.cloud(made.get(i), c.role(), c.expectedRtt().orElse(null));
        b.pricing(c.id(), c.pricing());
      }
      writer.ifPresent(w -> b.writer(w.writerId(), w.keys()));
      trustedWriters.forEach(b::trustWriter);
      operators.forEach(b::trustOperator);
      writerCertificate.ifPresent(b::writerCertificate);
      trustRefresh.ifPresent(b::trustRefresh);
      writerDiscovery.ifPresent(b::writerDiscovery);
      operationTimeout.ifPresent(b::operationTimeout);
      maxValueBytes.ifPresent(b::maxValueBytes);
      partSize.ifPresent(b::partSize);
      partsInFlight.ifPresent(b::partsInFlight);
      speculativeReadLimit.ifPresent(b::speculativeReadLimit);
      objective.ifPresent(b::objective);
      inlineThreshold.ifPresent(b::inlineThreshold);
      inlineLogBudget.ifPresent(b::inlineLogBudget);
      writeBack.ifPresent(b::writeBack);
      b.fairness(fairness);
      tenants.forEach(b::tenant);
      customizer.accept(b);
      RafeStore store;
      try {
        store = b.build();
      } catch (IllegalArgumentException e) {
        throw new ConfigException(source, 0, null, e.getMessage(), e);
      } catch (java.io.UncheckedIOException e) {
        // The write-back journal could not be opened (read-only, full, corrupt): its message
        // names the path and the cause.
        throw new ConfigException(
            source, 0, "writeBack.journal", e.getCause().getMessage(), e.getCause());
      }
      built = true;
      return store;
    } finally {
      if (!built) {
        for (CloudDriver d : made) {
          try {
            d.close();
          } catch (RuntimeException ignored) {
            // Closing is best effort here: the configuration error is what the caller needs.
          }
        }
      }
    }
  }

  /**
   * A driver for every cloud, in the clouds' order: each cloud's settings are checked here, in the
   * file's order (the first wrong one is thrown, and the drivers begun before it are closed), and
   * its SDK client is built on a daemon thread of its own, started as soon as its settings are
   * checked. A client's construction is mostly class loading and initialisation (hundreds of
   * classes for S3, GCS and Azure each), so the builds overlap each other and the caller's own
   * work, and a caller never waits for a build it does not send a request to.
   */
  private List<CloudDriver> createDrivers() throws ConfigException {
    List<CloudDriver> made = new ArrayList<>();
    boolean done = false;
    try {
      for (CloudConfig c : clouds) {
        Supplier<CloudDriver> client = prepareDriver(c);
        CompletableFuture<CloudDriver> built = new CompletableFuture<>();
        DeferredDriver driver = new DeferredDriver(c.id(), built);
        made.add(driver);
        Thread t = new Thread(() -> build(c, client, driver, built), "rafestore-open-" + c.id());
        t.setDaemon(true); // a command exits without waiting for a client it did not need
        t.start();
      }
      done = true;
      return made;
    } finally {
      if (!done) {
        for (CloudDriver d : made) {
          d.close(); // never waits for its build
        }
      }
    }
  }

  private void build(
      CloudConfig c,
      Supplier<CloudDriver> client,
      DeferredDriver driver,
      CompletableFuture<CloudDriver> built) {
    if (driver.closed()) {
      built.cancel(false); // closed before its build started: nothing to build
      return;
    }
    try {
      built.complete(client.get());
    } catch (IllegalArgumentException e) {
      built.completeExceptionally(rejected(c, e));
    } catch (RuntimeException | LinkageError e) {
      // Held requests must fail, not wait for ever (a LinkageError: a jar missing from the path).
      built.completeExceptionally(e);
    }
  }

  private void checkCredentialsVariable(CloudConfig c) throws ConfigException {
    String ref = c.spec().credentialsRef();
    // Only env:NAME is checked here; profile:NAME (s3) is the driver's to check.
    if (ref != null
        && ref.startsWith("env:")
        && System.getenv(ref.substring("env:".length())) == null) {
      throw new ConfigException(
          source,
          lineOf(c, "credentials"),
          "cloud." + c.id() + ".credentials",
          "environment variable "
              + ref.substring(4)
              + " is not set (export it, or remove the line to use the SDK's default"
              + " credentials chain)");
    }
  }

  /**
   * A new driver for one of this configuration's clouds, for tools that work on one cloud at a time
   * (creating buckets, checking each cloud); the caller closes it.
   *
   * @throws ConfigException as {@link #open(Consumer)}
   */
  public CloudDriver createDriver(CloudConfig c) throws ConfigException {
    if (!clouds.contains(c)) {
      throw new IllegalArgumentException("cloud " + c.id() + " is not one of " + source + "'s");
    }
    Supplier<CloudDriver> client = prepareDriver(c);
    try {
      return client.get();
    } catch (IllegalArgumentException e) {
      throw rejected(c, e);
    }
  }

  /**
   * Checks a cloud's settings as far as its driver can without building its SDK client, and returns
   * what builds the client (which may throw {@link IllegalArgumentException}, see {@link
   * #rejected}).
   */
  private Supplier<CloudDriver> prepareDriver(CloudConfig c) throws ConfigException {
    checkCredentialsVariable(c);
    try {
      return Drivers.prepare(c.spec());
    } catch (RuntimeException e) {
      throw rejected(c, e);
    }
  }

  /** A driver's rejection of a cloud's settings, naming the line and field it concerns. */
  private ConfigException rejected(CloudConfig c, RuntimeException e) {
    String message = String.valueOf(e.getMessage());
    String field = "type";
    if (message.contains("'credentialsRef'")) {
      field = "credentials";
    } else if (message.contains("'endpoint'")) {
      field = "endpoint";
    } else if (message.contains("'bucket'")) {
      field = "bucket";
    } else if (message.contains("'region'")) {
      field = "region";
    } else {
      for (String option : c.spec().options().keySet()) {
        if (message.contains("'" + option + "'")) {
          field = "option." + option;
          break;
        }
      }
    }
    return new ConfigException(
        source,
        lineOf(c, field),
        "cloud." + c.id() + "." + field,
        "the " + c.spec().type() + " driver rejected it: " + message,
        e);
  }

  private int lineOf(CloudConfig c, String field) {
    return cloudFieldLines.getOrDefault(c.id() + "." + field, c.line());
  }

  @Override
  public String toString() {
    return "StoreConfig["
        + source
        + ", f="
        + faultsTolerated
        + ", mode="
        + mode
        + ", clouds="
        + clouds.stream().map(CloudConfig::id).toList()
        + ", writer="
        + writer.map(KeyFiles.WriterKey::writerId).orElse("(read-only)")
        + ", trusted="
        + trustedWriters.keySet()
        + "]";
  }
}
