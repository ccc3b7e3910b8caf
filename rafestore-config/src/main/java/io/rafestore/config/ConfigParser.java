package io.rafestore.config;

import io.rafestore.CloudRole;
import io.rafestore.Layout;
import io.rafestore.Objective;
import io.rafestore.ProtocolMode;
import io.rafestore.SigningKeys;
import io.rafestore.WriterCertificate;
import io.rafestore.spi.CloudSpec;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.PublicKey;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The configuration file parser: reads {@code key = value} lines keeping each key's line number,
 * then interprets and validates them. One instance per parse; not thread-safe.
 */
final class ConfigParser {
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
  private static final Pattern DOLLARS = Pattern.compile("[0-9]{1,9}(\\.[0-9]{1,12})?");
  private static final Pattern ENV_REF = Pattern.compile("env:[A-Za-z_][A-Za-z0-9_]*");
  // A profile of the shared AWS files (~/.aws/config, ~/.aws/credentials): type s3 only.
  private static final Pattern PROFILE_REF = Pattern.compile("profile:[A-Za-z0-9_.@+/-]{1,128}");
  private static final List<String> TOP_LEVEL =
      List.of(
          "f",
          "mode",
          "writer.id",
          "writer.key",
          "trusted.<id>",
          "writer.certificate",
          "operator.<id>",
          "trustRefresh",
          "writerDiscovery",
          "operationTimeout",
          "maxValueBytes",
          "dataCloudsInOrderAdded",
          "encryptValues",
          "erasureCoding",
          "partSize",
          "partsInFlight",
          "speculativeReadLimit",
          "layout",
          "objective",
          "inlineThreshold",
          "inlineLogBudget",
          "groupCommit",
          "writeBack.journal",
          "writeBack.maxBytes",
          "writeBack.maxEntries",
          "writeBack.whenFull",
          "fairness",
          "fairness.cloudConcurrency",
          "fairness.cloudBytesInFlight",
          "fairness.tenantBytesInFlight",
          "fairness.costUnitBytes",
          "fairness.largeRequestBytes",
          "fairness.largeRequestShare",
          "tenant.<id>.<field>",
          "cloud.<id>.<field>");
  private static final List<String> TENANT_FIELDS = List.of("weight", "reservation", "limit");
  private static final Pattern TENANT_ID = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
  private static final List<String> CLOUD_FIELDS =
      List.of(
          "type",
          "endpoint",
          "bucket",
          "region",
          "credentials",
          "role",
          "rtt",
          "price",
          "price.putsPer1000",
          "price.getsPer1000",
          "price.listsPer1000",
          "price.egressPerGB",
          "price.storagePerGBMonth",
          "option.<name>");
  // The built-in price tables by name (cloud.<id>.price); the default is the driver type's.
  private static final Map<String, io.rafestore.Pricing> PRICE_TABLES =
      Map.of(
          "s3", io.rafestore.Pricing.S3_STANDARD,
          "azure", io.rafestore.Pricing.AZURE_BLOB_HOT,
          "gcs", io.rafestore.Pricing.GCS_STANDARD,
          "free", io.rafestore.Pricing.FREE);
  // Which fields the built-in driver types cannot do without; a third-party type checks its own.
  private static final Map<String, List<String>> REQUIRED_BY_TYPE =
      Map.of(
          "directory", List.of("bucket"),
          "s3", List.of("bucket"),
          "gcs", List.of("bucket"),
          "azure", List.of("bucket"),
          "redis", List.of("endpoint"));
  private static final Pattern SECRET_OPTION =
      Pattern.compile("(?i).*(password|secret|token|accountkey|sas|credential|apikey).*");

  private final String source;
  private final Path baseDirectory;
  private final Set<String> knownTypes;

  /** One {@code key = value} line. */
  private record Entry(String key, String value, int line) {}

  ConfigParser(String source, Path baseDirectory, Set<String> knownTypes) {
    this.source = source;
    this.baseDirectory = baseDirectory;
    this.knownTypes = knownTypes;
  }

  private ConfigException error(int line, String field, String problem) {
    return new ConfigException(source, line, field, problem);
  }

  StoreConfig parse(String text) throws IOException {
    Map<String, Entry> entries = readLines(text);

    Entry fEntry = entries.get("f");
    int f = fEntry == null ? 1 : parseInt(fEntry, 1, 85);
    ProtocolMode mode =
        entries.containsKey("mode")
            ? parseEnum(entries.get("mode"), ProtocolMode.class)
            : ProtocolMode.PAPER;
    Optional<Duration> timeout = Optional.empty();
    Entry timeoutEntry = entries.get("operationTimeout");
    if (timeoutEntry != null) {
      Duration d = parseDuration(timeoutEntry);
      if (d.isZero() || d.isNegative()) {
        throw error(
            timeoutEntry.line,
            timeoutEntry.key,
            "must be greater than zero, was '" + timeoutEntry.value + "'");
      }
      timeout = Optional.of(d);
    }
    OptionalLong maxValue =
        entries.containsKey("maxValueBytes")
            ? OptionalLong.of(parseSize(entries.get("maxValueBytes")))
            : OptionalLong.empty();
    boolean inOrder =
        entries.containsKey("dataCloudsInOrderAdded")
            && parseBoolean(entries.get("dataCloudsInOrderAdded"));

    // Group cloud.<id>.<field> entries by cloud, in order of first mention.
    Map<String, Map<String, Entry>> cloudEntries = new LinkedHashMap<>();
    Map<String, Entry> trustedEntries = new LinkedHashMap<>();
    Map<String, Entry> operatorEntries = new LinkedHashMap<>();
    Map<String, Map<String, Entry>> tenantEntries = new LinkedHashMap<>();
    for (Entry e : entries.values()) {
      if (e.key.startsWith("tenant.")) {
        String rest = e.key.substring("tenant.".length());
        int dot = rest.lastIndexOf('.');
        String id = dot <= 0 ? "" : rest.substring(0, dot);
        if (!TENANT_ID.matcher(id).matches()) {
          throw error(
              e.line,
              e.key,
              "a tenant key has the form tenant.<id>.<field>, <id> 1 to 64 of A-Z a-z 0-9 - _ ."
                  + " and <field> one of "
                  + TENANT_FIELDS);
        }
        tenantEntries
            .computeIfAbsent(id, k -> new LinkedHashMap<>())
            .put(rest.substring(dot + 1), e);
      }
      if (e.key.startsWith("cloud.")) {
        String rest = e.key.substring("cloud.".length());
        int dot = rest.indexOf('.');
        if (dot <= 0 || dot == rest.length() - 1) {
          throw error(
              e.line,
              e.key,
              "a cloud key has the form cloud.<id>.<field>, with <field> one of " + CLOUD_FIELDS);
        }
        String id = rest.substring(0, dot);
        checkId(e, id, "cloud id");
        cloudEntries
            .computeIfAbsent(id, k -> new LinkedHashMap<>())
            .put(rest.substring(dot + 1), e);
      } else if (e.key.startsWith("trusted.")) {
        String id = e.key.substring("trusted.".length());
        checkId(e, id, "writer id");
        trustedEntries.put(id, e);
      } else if (e.key.startsWith("operator.")) {
        String id = e.key.substring("operator.".length());
        checkId(e, id, "operator key id");
        operatorEntries.put(id, e);
      }
    }

    List<CloudConfig> clouds = new ArrayList<>();
    Map<String, Integer> fieldLines = new HashMap<>();
    Map<String, String> stores = new HashMap<>(); // physical store identity -> cloud id
    for (Map.Entry<String, Map<String, Entry>> c : cloudEntries.entrySet()) {
      clouds.add(parseCloud(c.getKey(), c.getValue(), fieldLines, stores));
    }
    if (clouds.isEmpty()) {
      throw error(
          0, "cloud.<id>.type", "no clouds are defined; add at least 3f+1 = " + (3 * f + 1));
    }
    int n = clouds.size();
    long data = clouds.stream().filter(c -> c.role().holdsData()).count();
    int fLine = fEntry == null ? 0 : fEntry.line;
    if (n < 3 * f + 1) {
      throw error(
          fLine,
          "f",
          "f = "
              + f
              + " needs at least 3f+1 = "
              + (3 * f + 1)
              + " clouds, but "
              + n
              + " are defined ("
              + ids(clouds)
              + ")");
    }
    if (data < 2L * f + 1) {
      throw error(
          fLine,
          "f",
          "f = "
              + f
              + " needs at least 2f+1 = "
              + (2 * f + 1)
              + " clouds with role DATA_AND_METADATA, but "
              + data
              + " of "
              + n
              + " have it");
    }

    Entry encryptEntry = entries.get("encryptValues");
    boolean encrypt = encryptEntry != null && parseBoolean(encryptEntry);
    if (encrypt && mode == ProtocolMode.DEPSKY_A) {
      throw error(
          encryptEntry.line,
          encryptEntry.key,
          "mode DEPSKY_A is the plaintext baseline; use DEPSKY_CA (which always encrypts) or"
              + " PAPER or FAST");
    }
    Entry codingEntry = entries.get("erasureCoding");
    int k = codingEntry == null ? 0 : parseInt(codingEntry, 0, 255);
    if (k != 0) {
      if (mode != ProtocolMode.PAPER && mode != ProtocolMode.FAST) {
        throw error(
            codingEntry.line,
            codingEntry.key,
            "only modes PAPER and FAST code their data; mode is " + mode);
      }
      if (k < 2) {
        throw error(
            codingEntry.line,
            codingEntry.key,
            "k must be >= 2 (k = 1 would be plain replication; 0 turns coding off), was " + k);
      }
      if (k + f > data) {
        throw error(
            codingEntry.line,
            codingEntry.key,
            "k + f = "
                + (k + f)
                + " fragments need as many clouds with role DATA_AND_METADATA, but "
                + data
                + " have it");
      }
    }

    Entry layoutEntry = entries.get("layout");
    Layout layout = layoutEntry == null ? Layout.FIXED : parseEnum(layoutEntry, Layout.class);
    if (layout == Layout.AUTO) {
      if (mode != ProtocolMode.PAPER && mode != ProtocolMode.FAST) {
        throw error(
            layoutEntry.line,
            layoutEntry.key,
            "only modes PAPER and FAST choose a layout per value; mode is " + mode);
      }
      if (k != 0) {
        throw error(
            layoutEntry.line,
            layoutEntry.key,
            "AUTO chooses each value's layout, erasureCoding = "
                + k
                + " fixes it: set one of them");
      }
    }
    Entry objectiveEntry = entries.get("objective");
    Optional<Objective> objective = Optional.empty();
    if (objectiveEntry != null) {
      try {
        objective = Optional.of(Objective.parse(objectiveEntry.value));
      } catch (IllegalArgumentException e) {
        throw error(objectiveEntry.line, objectiveEntry.key, e.getMessage());
      }
    }

    OptionalLong partSize = OptionalLong.empty();
    Entry partEntry = entries.get("partSize");
    if (partEntry != null) {
      long size = parseSize(partEntry);
      if (size < 1024 || size > 1024L * 1024 * 1024) {
        throw error(
            partEntry.line,
            partEntry.key,
            "must be between 1KiB and 1GiB, was '" + partEntry.value + "'");
      }
      partSize = OptionalLong.of(size);
    }
    Entry inFlightEntry = entries.get("partsInFlight");
    OptionalInt partsInFlight =
        inFlightEntry == null
            ? OptionalInt.empty()
            : OptionalInt.of(parseInt(inFlightEntry, 1, 64));

    Entry speculativeEntry = entries.get("speculativeReadLimit");
    OptionalLong speculativeReadLimit = OptionalLong.empty();
    if (speculativeEntry != null) {
      // 0 turns anticipated reads off; any other value is a size.
      speculativeReadLimit =
          OptionalLong.of(
              speculativeEntry.value.trim().equals("0") ? 0 : parseSize(speculativeEntry));
    }

    OptionalLong inlineThreshold = zeroOrSize(entries.get("inlineThreshold"));
    OptionalLong inlineLogBudget = zeroOrSize(entries.get("inlineLogBudget"));
    Entry groupEntry = entries.get("groupCommit");
    // Default on, as RafeStore.Builder.groupCommit.
    boolean groupCommit = groupEntry == null || parseBoolean(groupEntry);

    Optional<KeyFiles.WriterKey> writer =
        parseWriter(entries.get("writer.id"), entries.get("writer.key"));
    Optional<io.rafestore.WriteBack> writeBack = parseWriteBack(entries, mode, encrypt, writer);
    Map<String, PublicKey> trusted = new LinkedHashMap<>();
    for (Map.Entry<String, Entry> t : trustedEntries.entrySet()) {
      PublicKey key = parseTrusted(t.getKey(), t.getValue());
      if (writer.isPresent()
          && writer.get().writerId().equals(t.getKey())
          && !writer.get().keys().getPublic().equals(key)) {
        throw error(
            t.getValue().line,
            t.getValue().key,
            "this is not the public key of writer.key, which is also writer " + t.getKey() + "'s");
      }
      trusted.put(t.getKey(), key);
    }
    Map<String, PublicKey> operators = new LinkedHashMap<>();
    for (Map.Entry<String, Entry> o : operatorEntries.entrySet()) {
      operators.put(o.getKey(), parseTrusted(o.getKey(), o.getValue()));
    }
    Optional<WriterCertificate> certificate =
        parseCertificate(entries.get("writer.certificate"), writer);
    Optional<Duration> trustRefresh = Optional.empty();
    Entry refreshEntry = entries.get("trustRefresh");
    if (refreshEntry != null) {
      Duration d = parseDuration(refreshEntry);
      if (d.isNegative() || d.compareTo(Duration.ofDays(1)) > 0) {
        throw error(
            refreshEntry.line,
            refreshEntry.key,
            "must be 0s (read on every operation) to 24h, was '" + refreshEntry.value + "'");
      }
      trustRefresh = Optional.of(d);
    }
    Entry discoveryEntry = entries.get("writerDiscovery");
    Optional<io.rafestore.WriterDiscovery> writerDiscovery =
        discoveryEntry == null
            ? Optional.empty()
            : Optional.of(parseEnum(discoveryEntry, io.rafestore.WriterDiscovery.class));
    io.rafestore.Fairness fairness = parseFairness(entries);
    Map<String, io.rafestore.TenantShare> tenants = new LinkedHashMap<>();
    for (Map.Entry<String, Map<String, Entry>> t : tenantEntries.entrySet()) {
      tenants.put(t.getKey(), parseTenant(t.getValue()));
    }
    return new StoreConfig(
        source,
        f,
        mode,
        clouds,
        writer,
        trusted,
        timeout,
        maxValue,
        inOrder,
        encrypt,
        k,
        partSize,
        partsInFlight,
        speculativeReadLimit,
        layout,
        objective,
        inlineThreshold,
        inlineLogBudget,
        groupCommit,
        writeBack,
        fieldLines,
        operators,
        certificate,
        trustRefresh,
        writerDiscovery,
        fairness,
        tenants);
  }

  /** {@code fairness = on|off} and its tunables (which need {@code fairness = on}). */
  private io.rafestore.Fairness parseFairness(Map<String, Entry> entries) throws ConfigException {
    Entry onOff = entries.get("fairness");
    boolean on = false;
    if (onOff != null) {
      String v = onOff.value.trim().toLowerCase(Locale.ROOT);
      if (v.equals("on") || v.equals("true")) {
        on = true;
      } else if (!v.equals("off") && !v.equals("false")) {
        throw error(
            onOff.line, onOff.key, "'" + onOff.value + "' is not allowed; allowed: on, off");
      }
    }
    io.rafestore.Fairness f = io.rafestore.Fairness.on();
    String[] tunables = {
      "fairness.cloudConcurrency",
      "fairness.cloudBytesInFlight",
      "fairness.tenantBytesInFlight",
      "fairness.costUnitBytes",
      "fairness.largeRequestBytes",
      "fairness.largeRequestShare"
    };
    for (String key : tunables) {
      Entry e = entries.get(key);
      if (e == null) {
        continue;
      }
      if (!on) {
        throw error(e.line, e.key, "needs fairness = on");
      }
      try {
        switch (key) {
          case "fairness.cloudConcurrency" -> f = f.withCloudConcurrency(parseInt(e, 1, 65_536));
          case "fairness.cloudBytesInFlight" -> f = f.withCloudBytesInFlight(parseSize(e));
          case "fairness.tenantBytesInFlight" -> f = f.withTenantBytesInFlight(parseSize(e));
          case "fairness.largeRequestBytes" ->
              f = f.withLargeRequests(parseSize(e), f.largeRequestShare());
          case "fairness.largeRequestShare" ->
              f = f.withLargeRequests(f.largeRequestBytes(), parseShare(e));
          default -> f = f.withCostUnitBytes(parseSize(e));
        }
      } catch (IllegalArgumentException ex) {
        throw error(e.line, e.key, ex.getMessage());
      }
    }
    return on ? f : io.rafestore.Fairness.off();
  }

  /** A share in (0, 1]. */
  private ConfigException shareError(Entry e) {
    return error(e.line, e.key, "'" + e.value + "' is not a share in (0, 1] (e.g. 0.5)");
  }

  private double parseShare(Entry e) throws ConfigException {
    double d;
    try {
      d = Double.parseDouble(e.value.trim());
    } catch (NumberFormatException ex) {
      throw shareError(e);
    }
    if (!(d > 0 && d <= 1)) {
      throw shareError(e);
    }
    return d;
  }

  /** A tenant's {@code weight}, {@code reservation} and {@code limit} (cost units per second). */
  private io.rafestore.TenantShare parseTenant(Map<String, Entry> fields) throws ConfigException {
    double[] v = {1, 0, 0};
    Entry last = null;
    for (Map.Entry<String, Entry> f : fields.entrySet()) {
      Entry e = f.getValue();
      int i = TENANT_FIELDS.indexOf(f.getKey());
      if (i < 0) {
        throw error(
            e.line,
            e.key,
            "unknown tenant field '" + f.getKey() + "'; known fields: " + TENANT_FIELDS);
      }
      double d;
      try {
        d = Double.parseDouble(e.value.trim());
      } catch (NumberFormatException ex) {
        throw error(e.line, e.key, "'" + e.value + "' is not a number");
      }
      if (Double.isNaN(d) || d < 0 || (i == 0 && !(d > 0))) {
        throw error(
            e.line,
            e.key,
            i == 0
                ? "must be > 0, was '" + e.value + "'"
                : "must be >= 0 (0: none), was '" + e.value + "'");
      }
      v[i] = d;
      last = e;
    }
    try {
      return new io.rafestore.TenantShare(v[0], v[1], v[2]);
    } catch (IllegalArgumentException ex) {
      throw error(last.line, last.key, ex.getMessage());
    }
  }

  /**
   * The writer's certificate file ({@code rafestore certify}): it must certify writer.id and the
   * public half of writer.key. Its operator signature and period are checked by the client (a
   * writer need not trust its operator; a certificate may start or end while it runs).
   */
  private Optional<WriterCertificate> parseCertificate(Entry e, Optional<KeyFiles.WriterKey> writer)
      throws IOException {
    if (e == null) {
      return Optional.empty();
    }
    if (writer.isEmpty()) {
      throw error(
          e.line, e.key, "needs writer.id and writer.key: a certificate is a writer's to carry");
    }
    Path file = baseDirectory.resolve(e.value);
    String text;
    try {
      text = java.nio.file.Files.readString(file, java.nio.charset.StandardCharsets.UTF_8);
    } catch (NoSuchFileException ex) {
      throw error(
          e.line,
          e.key,
          "certificate file " + file + " does not exist (issue one with 'rafestore certify')");
    } catch (java.nio.charset.CharacterCodingException ex) {
      throw error(e.line, e.key, "certificate file " + file + " is not UTF-8 text");
    }
    WriterCertificate cert;
    try {
      cert = WriterCertificate.parseText(text);
    } catch (io.rafestore.WriterTrustException ex) {
      throw error(e.line, e.key, "certificate file " + file + ": " + ex.getMessage());
    }
    String id = writer.get().writerId();
    if (!cert.writerId().equals(id)) {
      throw error(
          e.line,
          e.key,
          "certificate file " + file + " certifies writer " + cert.writerId() + ", not " + id);
    }
    if (!cert.certifies(writer.get().keys().getPublic())) {
      throw error(
          e.line,
          e.key,
          "certificate file " + file + " certifies another public key than writer.key's");
    }
    return Optional.of(cert);
  }

  /**
   * The write-back journal ({@code writeBack.journal}, a directory relative to the file's, and its
   * bound and policy), checked here against the settings it needs so that the error names a line.
   */
  private Optional<io.rafestore.WriteBack> parseWriteBack(
      Map<String, Entry> entries,
      ProtocolMode mode,
      boolean encrypt,
      Optional<KeyFiles.WriterKey> writer)
      throws ConfigException {
    Entry dirEntry = entries.get("writeBack.journal");
    if (dirEntry == null) {
      for (String k : List.of("writeBack.maxBytes", "writeBack.maxEntries", "writeBack.whenFull")) {
        Entry e = entries.get(k);
        if (e != null) {
          throw error(e.line, e.key, "needs writeBack.journal (the journal's directory)");
        }
      }
      return Optional.empty();
    }
    if (writer.isEmpty()) {
      throw error(dirEntry.line, dirEntry.key, "write-back needs a writer (writer.id, writer.key)");
    }
    if (mode != ProtocolMode.PAPER && mode != ProtocolMode.FAST) {
      throw error(
          dirEntry.line, dirEntry.key, "only modes PAPER and FAST write back; mode is " + mode);
    }
    if (encrypt) {
      throw error(
          dirEntry.line, dirEntry.key, "write-back is not supported with encryptValues yet");
    }
    io.rafestore.WriteBack wb =
        io.rafestore.WriteBack.journal(baseDirectory.resolve(dirEntry.value).normalize());
    Entry bytes = entries.get("writeBack.maxBytes");
    if (bytes != null) {
      try {
        wb = wb.maxBytes(parseSize(bytes));
      } catch (IllegalArgumentException e) {
        throw error(
            bytes.line,
            bytes.key,
            "must be between 64KiB and 2^50 bytes, was '" + bytes.value + "'");
      }
    }
    Entry count = entries.get("writeBack.maxEntries");
    if (count != null) {
      wb = wb.maxEntries(parseInt(count, 1, Integer.MAX_VALUE));
    }
    Entry full = entries.get("writeBack.whenFull");
    if (full != null) {
      wb = wb.whenFull(parseEnum(full, io.rafestore.WriteBack.WhenFull.class));
    }
    return Optional.of(wb);
  }

  /** An optional size where {@code 0} is allowed (it turns a feature off). */
  private OptionalLong zeroOrSize(Entry entry) throws ConfigException {
    if (entry == null) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(entry.value.trim().equals("0") ? 0 : parseSize(entry));
  }

  // ---- lines ----------------------------------------------------------------------------------

  private Map<String, Entry> readLines(String text) throws ConfigException {
    Map<String, Entry> entries = new LinkedHashMap<>();
    String[] lines = text.split("\r\n|\r|\n", -1);
    for (int i = 0; i < lines.length; i++) {
      int lineNo = i + 1;
      String line = lines[i].strip();
      if (i == 0 && line.startsWith("\uFEFF")) {
        line = line.substring(1).strip();
      }
      if (line.isEmpty() || line.startsWith("#") || line.startsWith("!")) {
        continue;
      }
      int eq = line.indexOf('=');
      if (eq < 0) {
        throw error(lineNo, null, "expected 'key = value', found no '='");
      }
      String key = line.substring(0, eq).strip();
      String value = line.substring(eq + 1).strip();
      if (key.isEmpty()) {
        throw error(lineNo, null, "a line starts with '=' (the key is missing)");
      }
      if (!key.matches("[A-Za-z0-9_.-]+")) {
        throw error(lineNo, key, "a key has only letters, digits and . _ - (no spaces or quotes)");
      }
      if (value.endsWith("\\")) {
        throw error(lineNo, key, "line continuations ('\\' at the end) are not supported");
      }
      if (value.isEmpty()) {
        throw error(lineNo, key, "has no value; remove the line to use the default");
      }
      checkKnownKey(key, lineNo);
      Entry previous = entries.putIfAbsent(key, new Entry(key, value, lineNo));
      if (previous != null) {
        throw error(lineNo, key, "set twice (first on line " + previous.line + ")");
      }
    }
    return entries;
  }

  private void checkKnownKey(String key, int line) throws ConfigException {
    if (key.startsWith("cloud.")) {
      String rest = key.substring("cloud.".length());
      int dot = rest.indexOf('.');
      String field = dot < 0 ? "" : rest.substring(dot + 1);
      boolean known =
          (field.startsWith("option.") && field.length() > "option.".length())
              || CLOUD_FIELDS.contains(field);
      if (!known) {
        throw error(
            line,
            key,
            dot < 0
                ? "a cloud key has the form cloud.<id>.<field>, with <field> one of " + CLOUD_FIELDS
                : "unknown cloud field '" + field + "'; known fields: " + CLOUD_FIELDS);
      }
      return;
    }
    if (key.startsWith("trusted.")
        || key.startsWith("operator.")
        || key.startsWith("tenant.")
        || TOP_LEVEL.contains(key)) {
      return;
    }
    throw error(line, key, "unknown key; known keys: " + TOP_LEVEL);
  }

  // ---- clouds ---------------------------------------------------------------------------------

  private CloudConfig parseCloud(
      String id,
      Map<String, Entry> fields,
      Map<String, Integer> fieldLines,
      Map<String, String> stores)
      throws ConfigException {
    int firstLine = fields.values().stream().mapToInt(Entry::line).min().orElse(0);
    fields.forEach((name, e) -> fieldLines.put(id + "." + name, e.line));
    Entry typeEntry = fields.get("type");
    if (typeEntry == null) {
      throw error(
          firstLine,
          "cloud." + id + ".type",
          "missing: cloud " + id + " needs a driver type, one of " + knownTypes);
    }
    String type = typeEntry.value;
    if (!knownTypes.contains(type)) {
      throw error(
          typeEntry.line,
          typeEntry.key,
          "unknown driver type '" + type + "'; known types: " + String.join(", ", knownTypes));
    }
    for (String required : REQUIRED_BY_TYPE.getOrDefault(type, List.of())) {
      if (!fields.containsKey(required)) {
        throw error(
            firstLine,
            "cloud." + id + "." + required,
            "missing: required for type " + type + " (cloud " + id + ")");
      }
    }
    String endpoint = value(fields.get("endpoint"));
    if (endpoint != null) {
      checkEndpoint(fields.get("endpoint"));
    }
    String bucket = value(fields.get("bucket"));
    if (bucket != null && type.equals("directory")) {
      bucket = baseDirectory.resolve(bucket).normalize().toString();
    }
    String credentials = null;
    Entry cred = fields.get("credentials");
    if (cred != null) {
      if (PROFILE_REF.matcher(cred.value).matches()) {
        if (!type.equals("s3")) {
          throw error(
              cred.line,
              cred.key,
              "'"
                  + cred.value
                  + "' names an AWS profile, which only type s3 reads; for type "
                  + type
                  + " use env:NAME, or leave it out for the SDK's default credentials chain");
        }
      } else if (!ENV_REF.matcher(cred.value).matches()) {
        // Never echo the value: it may be the secret itself, pasted in by mistake.
        throw error(
            cred.line,
            cred.key,
            "must be a reference env:NAME (an environment variable that holds the secret),"
                + " profile:NAME (type s3: a profile of the shared AWS files), or left out for"
                + " the SDK's default credentials chain; secrets are never written in the file"
                + " (the value is not shown here)");
      }
      credentials = cred.value;
    }
    CloudRole role =
        fields.containsKey("role")
            ? parseEnum(fields.get("role"), CloudRole.class)
            : CloudRole.DATA_AND_METADATA;
    Optional<Duration> rtt = Optional.empty();
    if (fields.containsKey("rtt")) {
      Entry e = fields.get("rtt");
      Duration d = parseDuration(e);
      if (d.isNegative()) {
        throw error(e.line, e.key, "must be >= 0, was '" + e.value + "'");
      }
      rtt = Optional.of(d);
    }
    Map<String, String> options = new LinkedHashMap<>();
    for (Map.Entry<String, Entry> f : fields.entrySet()) {
      if (f.getKey().startsWith("option.")) {
        String name = f.getKey().substring("option.".length());
        Entry e = f.getValue();
        if (SECRET_OPTION.matcher(name).matches()) {
          throw error(
              e.line,
              e.key,
              "looks like a secret; secrets are never written in the file: use"
                  + " cloud."
                  + id
                  + ".credentials = env:NAME (the value is not shown here)");
        }
        options.put(name, e.value);
      }
    }
    CloudSpec spec =
        new CloudSpec(
            id, type, endpoint, bucket, value(fields.get("region")), credentials, options);
    // Two entries for one physical store would let one real cloud count as two of the n >= 3f+1.
    if (bucket != null || endpoint != null) {
      String identity = type + "|" + endpoint + "|" + bucket;
      String other = stores.putIfAbsent(identity, id);
      if (other != null) {
        Entry where = fields.containsKey("bucket") ? fields.get("bucket") : fields.get("endpoint");
        throw error(
            where.line,
            where.key,
            "clouds "
                + other
                + " and "
                + id
                + " are the same store ("
                + type
                + (endpoint == null ? "" : " " + endpoint)
                + (bucket == null ? "" : " " + bucket)
                + "); each cloud must be a separate store, or one failure would count as several");
      }
    }
    return new CloudConfig(spec, role, rtt, firstLine, parsePricing(id, type, fields));
  }

  /**
   * The cloud's prices: the table {@code price} names (s3, azure, gcs, free), else its driver
   * type's ({@link io.rafestore.Pricing#forDriverType}), with each {@code price.<field>} given
   * replacing that one number.
   */
  private io.rafestore.Pricing parsePricing(String id, String type, Map<String, Entry> fields)
      throws ConfigException {
    io.rafestore.Pricing base = io.rafestore.Pricing.forDriverType(type);
    Entry table = fields.get("price");
    if (table != null) {
      base = PRICE_TABLES.get(table.value.toLowerCase(Locale.ROOT));
      if (base == null) {
        throw error(
            table.line,
            table.key,
            "unknown price table '"
                + table.value
                + "'; known tables: azure, free, gcs, s3 (or set cloud."
                + id
                + ".price.<field> for each number)");
      }
    }
    double[] v = {
      base.putsPer1000(),
      base.getsPer1000(),
      base.listsPer1000(),
      base.egressPerGB(),
      base.storagePerGBMonth()
    };
    String[] names = {
      "putsPer1000", "getsPer1000", "listsPer1000", "egressPerGB", "storagePerGBMonth"
    };
    for (int i = 0; i < names.length; i++) {
      Entry e = fields.get("price." + names[i]);
      if (e != null) {
        v[i] = parseDollars(e);
      }
    }
    return new io.rafestore.Pricing(v[0], v[1], v[2], v[3], v[4]);
  }

  /** A price in US dollars: a finite decimal number >= 0 (no currency sign). */
  private double parseDollars(Entry e) throws ConfigException {
    if (!DOLLARS.matcher(e.value).matches()) {
      throw error(
          e.line,
          e.key,
          "must be a number of US dollars >= 0 such as 0.005 (digits and one point), was '"
              + e.value
              + "'");
    }
    return Double.parseDouble(e.value);
  }

  private void checkEndpoint(Entry e) throws ConfigException {
    String v = e.value;
    if (v.contains("AccountKey=") || v.contains("SharedAccessSignature=") || v.contains("sig=")) {
      throw error(
          e.line,
          e.key,
          "holds a secret (an account key or SAS signature); give the endpoint without it and"
              + " the secret through credentials = env:NAME (the value is not shown here)");
    }
    URI uri;
    try {
      uri = new URI(v);
    } catch (URISyntaxException ex) {
      throw error(e.line, e.key, "'" + v + "' is not a URL: " + ex.getReason());
    }
    if (uri.getScheme() == null) {
      throw error(
          e.line, e.key, "'" + v + "' is not a URL (no scheme, such as http:// or redis://)");
    }
    if (uri.getRawUserInfo() != null) {
      throw error(
          e.line,
          e.key,
          "has credentials in it (user:password@); give the endpoint without them and the"
              + " secret through credentials = env:NAME (the value is not shown here)");
    }
  }

  // ---- keys -----------------------------------------------------------------------------------

  private Optional<KeyFiles.WriterKey> parseWriter(Entry idEntry, Entry keyEntry)
      throws IOException {
    if (idEntry == null && keyEntry == null) {
      return Optional.empty();
    }
    if (keyEntry == null) {
      throw error(
          idEntry.line,
          "writer.key",
          "missing: writer.id is set, so the writer's private key file is needed too");
    }
    if (idEntry == null) {
      throw error(
          keyEntry.line,
          "writer.id",
          "missing: writer.key is set, so the writer's id is needed too");
    }
    checkId(idEntry, idEntry.value, "writer id");
    Path file = baseDirectory.resolve(keyEntry.value);
    KeyFiles.WriterKey key;
    try {
      key = KeyFiles.readKeyPair(file, idEntry.value);
    } catch (NoSuchFileException ex) {
      throw error(
          keyEntry.line,
          keyEntry.key,
          "key file " + file + " does not exist (make one with 'rafestore keygen')");
    } catch (ConfigException ex) {
      throw new ConfigException(source, keyEntry.line, keyEntry.key, ex.getMessage(), ex);
    }
    if (!key.writerId().equals(idEntry.value)) {
      throw error(
          keyEntry.line,
          keyEntry.key,
          "key file "
              + file
              + " is writer "
              + key.writerId()
              + "'s, but writer.id (line "
              + idEntry.line
              + ") is "
              + idEntry.value);
    }
    return Optional.of(key);
  }

  private PublicKey parseTrusted(String id, Entry e) throws IOException {
    if (e.value.startsWith("base64:")) {
      try {
        return SigningKeys.decodePublic(e.value.substring("base64:".length()));
      } catch (IllegalArgumentException ex) {
        throw error(e.line, e.key, ex.getMessage());
      }
    }
    Path file = baseDirectory.resolve(e.value);
    KeyFiles.TrustedKey key;
    try {
      key = KeyFiles.readPublicKey(file, id);
    } catch (NoSuchFileException ex) {
      throw error(
          e.line,
          e.key,
          "public key file "
              + file
              + " does not exist (give a file made by 'rafestore keygen', or base64:<key>)");
    } catch (ConfigException ex) {
      throw new ConfigException(source, e.line, e.key, ex.getMessage(), ex);
    }
    if (!key.writerId().equals(id)) {
      throw error(
          e.line,
          e.key,
          "public key file " + file + " is writer " + key.writerId() + "'s, not " + id + "'s");
    }
    return key.publicKey();
  }

  // ---- values ---------------------------------------------------------------------------------

  private void checkId(Entry e, String id, String what) throws ConfigException {
    if (!ID.matcher(id).matches()) {
      throw error(
          e.line, e.key, "'" + id + "' is not a valid " + what + " (1 to 64 of A-Z a-z 0-9 - _)");
    }
  }

  private static String value(Entry e) {
    return e == null ? null : e.value;
  }

  private static String ids(List<CloudConfig> clouds) {
    return clouds.stream().map(CloudConfig::id).collect(Collectors.joining(", "));
  }

  private int parseInt(Entry e, int min, int max) throws ConfigException {
    int v;
    try {
      v = Integer.parseInt(e.value);
    } catch (NumberFormatException ex) {
      throw error(e.line, e.key, "'" + e.value + "' is not a whole number");
    }
    if (v < min || v > max) {
      throw error(e.line, e.key, "must be between " + min + " and " + max + ", was " + v);
    }
    return v;
  }

  private <E extends Enum<E>> E parseEnum(Entry e, Class<E> type) throws ConfigException {
    String normal = e.value.toUpperCase(Locale.ROOT).replace('-', '_');
    for (E constant : type.getEnumConstants()) {
      if (constant.name().equals(normal)) {
        return constant;
      }
    }
    throw error(
        e.line,
        e.key,
        "'"
            + e.value
            + "' is not allowed; allowed: "
            + Arrays.stream(type.getEnumConstants())
                .map(Enum::name)
                .collect(Collectors.joining(", ")));
  }

  private boolean parseBoolean(Entry e) throws ConfigException {
    if (e.value.equalsIgnoreCase("true")) {
      return true;
    }
    if (e.value.equalsIgnoreCase("false")) {
      return false;
    }
    throw error(e.line, e.key, "'" + e.value + "' is not allowed; allowed: true, false");
  }

  /** 250ms, 5s, 2m, 1h, or ISO-8601 such as PT1M30S. */
  private Duration parseDuration(Entry e) throws ConfigException {
    String v = e.value.trim();
    try {
      if (v.startsWith("PT") || v.startsWith("pt")) {
        return Duration.parse(v);
      }
      String[][] units = {{"ms", "MILLIS"}, {"s", "SECONDS"}, {"m", "MINUTES"}, {"h", "HOURS"}};
      for (String[] u : units) {
        if (v.endsWith(u[0])) {
          String number = v.substring(0, v.length() - u[0].length()).trim();
          if (number.matches("-?[0-9]+")) {
            long n = Long.parseLong(number);
            return Duration.of(n, java.time.temporal.ChronoUnit.valueOf(u[1]));
          }
        }
      }
    } catch (DateTimeParseException | NumberFormatException | ArithmeticException ex) {
      // fall through to the error below
    }
    throw error(
        e.line,
        e.key,
        "'" + v + "' is not a duration; write a whole number with a unit: 250ms, 30s, 5m, 1h");
  }

  /** Bytes, or a whole number of KiB, MiB or GiB. */
  private long parseSize(Entry e) throws ConfigException {
    String v = e.value.trim();
    long unit = 1;
    String number = v;
    String[] suffixes = {"KiB", "MiB", "GiB"};
    for (int i = 0; i < suffixes.length; i++) {
      if (v.endsWith(suffixes[i])) {
        unit = 1L << (10 * (i + 1));
        number = v.substring(0, v.length() - 3).trim();
      }
    }
    try {
      long n = Long.parseLong(number);
      if (n < 1) {
        throw error(e.line, e.key, "must be at least 1 byte, was '" + v + "'");
      }
      return Math.multiplyExact(n, unit);
    } catch (NumberFormatException | ArithmeticException ex) {
      throw error(
          e.line,
          e.key,
          "'" + v + "' is not a size; write a whole number of bytes, or with KiB, MiB or GiB");
    }
  }
}
