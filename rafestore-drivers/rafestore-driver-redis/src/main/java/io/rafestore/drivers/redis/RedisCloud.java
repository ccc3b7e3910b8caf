package io.rafestore.drivers.redis;

import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.CloudException.Kind;
import io.rafestore.spi.DriverBuilder;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import io.rafestore.spi.support.BlockingCalls;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * A cloud kept in a Redis server: each object is one binary string value under the key {@code
 * keyPrefix + name}, so several stores can share a server (or a database) without seeing each
 * other's objects.
 *
 * <p><b>Durability depends on the Redis server's persistence settings</b> (RDB snapshots, AOF with
 * its fsync policy, replication). A server run without persistence loses every object on restart;
 * RafeStore's protocol masks up to f such clouds, but a deployment should configure {@code
 * appendonly yes} where Redis is meant to be a durable cloud. Objects live in memory, so the
 * largest object is bounded by the server's {@code proto-max-bulk-len} (512 MB by default).
 *
 * <p>Jedis is blocking: calls run on a pool of at most {@link Builder#maxConnections(int)} threads,
 * one pooled connection each. A cancelled call that has not started never runs. Listing uses {@code
 * SCAN MATCH prefix*} and sorts the result; it is not a snapshot (objects written during a listing
 * may or may not appear). Thread-safe.
 */
public final class RedisCloud implements CloudDriver {
  /**
   * The tag of the value {@code v} in a script: the SHA-1 of its bytes and their length, computed
   * by the server. One text for both scripts, so the conditional put checks exactly the tag the
   * conditional get gives.
   */
  private static final String TAG_OF_V = "redis.sha1hex(v) .. ':' .. string.len(v)";

  /**
   * The conditional get, one atomic script: the value's tag is the SHA-1 of its bytes and their
   * length, computed by the server; nil for a missing key, the tag alone when it equals the tag
   * sent (ARGV[1], empty for none), else the tag and the value, or the range of it from offset
   * ARGV[2] of at most ARGV[3] bytes when ARGV[3] is not negative (so only that crosses the
   * network).
   */
  private static final byte[] TAGGED_GET =
      ("local v = redis.call('GET', KEYS[1]) "
              + "if not v then return false end "
              + "local t = "
              + TAG_OF_V
              + " "
              + "if t == ARGV[1] then return {t} end "
              + "local len = tonumber(ARGV[3]) "
              + "if len >= 0 then "
              + "local from = tonumber(ARGV[2]) "
              + "return {t, string.sub(v, from + 1, from + len)} end "
              + "return {t, v}")
          .getBytes(StandardCharsets.UTF_8);

  /**
   * The conditional put, one atomic script: with ARGV[1] = "1", sets the key to ARGV[3] only if its
   * value's tag (as {@link #TAGGED_GET} computes it) is ARGV[2]; with ARGV[1] = "0", only if the
   * key does not exist. Returns 1 if it set the key, 0 if not.
   */
  private static final byte[] PUT_IF_MATCH =
      ("if ARGV[1] == '1' then "
              + "local v = redis.call('GET', KEYS[1]) "
              + "if not v or "
              + TAG_OF_V
              + " ~= ARGV[2] then return 0 end "
              + "elseif redis.call('EXISTS', KEYS[1]) == 1 then return 0 end "
              + "redis.call('SET', KEYS[1], ARGV[3]) "
              + "return 1")
          .getBytes(StandardCharsets.UTF_8);

  private final String id;
  private final byte[] keyPrefix;
  private final String keyPrefixText;
  private final RedisClient client;
  private final ExecutorService pool;
  private volatile boolean closed;
  private final Script taggedGetScript = new Script(TAGGED_GET);
  private final Script putIfMatchScript = new Script(PUT_IF_MATCH);

  private RedisCloud(Builder b) {
    this.id = b.id();
    this.keyPrefixText = b.keyPrefix;
    this.keyPrefix = b.keyPrefix.getBytes(StandardCharsets.UTF_8);
    DefaultJedisClientConfig.Builder config =
        DefaultJedisClientConfig.builder()
            .connectionTimeoutMillis(Math.toIntExact(b.connectTimeout().toMillis()))
            .socketTimeoutMillis(Math.toIntExact(b.readTimeout().toMillis()))
            .database(b.database)
            .clientName("rafestore-" + b.id());
    String[] userInfo = userInfo(b.uri);
    String password = b.password != null ? b.password : userInfo[1];
    if (userInfo[0] != null) {
      config.user(userInfo[0]);
    }
    if (password != null) {
      config.password(password);
    }
    ConnectionPoolConfig poolConfig = new ConnectionPoolConfig();
    poolConfig.setMaxTotal(b.maxConnections);
    poolConfig.setMaxIdle(b.maxConnections);
    // No MBean per pool: registering one loads the JMX server (about 0.2 s of a one-off command's
    // start-up) for figures RafeStore's own listener already reports.
    poolConfig.setJmxEnabled(false);
    this.client =
        RedisClient.builder()
            .hostAndPort(b.uri.getHost(), b.uri.getPort() < 0 ? 6379 : b.uri.getPort())
            .clientConfig(config.build())
            .poolConfig(poolConfig)
            .build();
    this.pool = BlockingCalls.boundedPool("rafestore-redis-" + id, b.maxConnections);
  }

  /** Settings for a driver with the given cloud id. */
  public static Builder builder(String id) {
    return new Builder(id);
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    Objects.requireNonNull(key, "key");
    // Copied now: the caller may reuse its array as soon as put returns.
    byte[] copy = Objects.requireNonNull(data, "data").clone();
    return call(
        () -> {
          client.set(redisKey(key), copy);
          return null;
        });
  }

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(range, "range");
    byte[] k = redisKey(key);
    return call(
        () -> {
          if (range.isEmpty()) {
            byte[] value = client.get(k);
            if (value == null) {
              throw CloudException.notFound(id, key);
            }
            return value;
          }
          ByteRange r = range.get();
          // GETRANGE answers "" both for a missing key and for a range past the end, and reads
          // "0 to -1" as the whole value, so empty answers are checked against EXISTS.
          byte[] value =
              r.length() == 0 ? new byte[0] : client.getrange(k, r.offset(), r.lastInclusive());
          if (value.length == 0 && !client.exists(k)) {
            throw CloudException.notFound(id, key);
          }
          return value;
        });
  }

  /** The server tags values with their content hash (a script), so this driver gives tags. */
  @Override
  public boolean conditionalGets() {
    return true;
  }

  /**
   * A script run atomically on the server ({@code EVALSHA}, loaded once, sent again after a server
   * restart or {@code SCRIPT FLUSH}): the tag is the SHA-1 of the value and its length, so
   * "unchanged" exactly when the stored bytes are those the tag was given for, and an unchanged
   * answer sends the tag back instead of the value. Hashing costs the server a pass over the value
   * (about a microsecond per kilobyte), which a metadata log of a few kilobytes repays by not
   * crossing the network; Redis has no request price. Needs scripting ({@code EVAL}) allowed for
   * this user.
   */
  @Override
  public CompletableFuture<TaggedGet> getTagged(
      ObjectKey key, Optional<ByteRange> range, Optional<String> ifNoneMatch) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(range, "range");
    Objects.requireNonNull(ifNoneMatch, "ifNoneMatch");
    byte[] k = redisKey(key);
    byte[] sent = ifNoneMatch.orElse("").getBytes(StandardCharsets.UTF_8);
    byte[] from =
        Long.toString(range.map(ByteRange::offset).orElse(0L)).getBytes(StandardCharsets.US_ASCII);
    byte[] length =
        Long.toString(range.map(ByteRange::length).orElse(-1L)).getBytes(StandardCharsets.US_ASCII);
    return call(
        () -> {
          Object reply = run(taggedGetScript, k, sent, from, length);
          if (reply == null) {
            throw CloudException.notFound(id, key);
          }
          if (!(reply instanceof List<?> parts)
              || parts.isEmpty()
              || parts.size() > 2
              || !(parts.get(0) instanceof byte[] tag)) {
            throw new CloudException(id, Kind.OTHER, "unexpected answer to the tagged get");
          }
          String tagText = new String(tag, StandardCharsets.UTF_8);
          if (parts.size() == 1) {
            return TaggedGet.unchanged(tagText);
          }
          if (!(parts.get(1) instanceof byte[] value)) {
            throw new CloudException(id, Kind.OTHER, "unexpected answer to the tagged get");
          }
          return TaggedGet.of(value, tagText);
        });
  }

  /** A check-and-set script compares the tag {@link #getTagged} gives, so conditional puts. */
  @Override
  public boolean conditionalPuts() {
    return true;
  }

  /**
   * A script run atomically on the server ({@code EVALSHA}, loaded once, sent again after a server
   * restart or {@code SCRIPT FLUSH}, as {@link #getTagged}'s): it computes the tag of the value
   * stored exactly as the conditional get does (the SHA-1 of the value and its length) and sets the
   * key only if that is {@code ifMatch}, or, with {@code ifMatch} empty, only if the key does not
   * exist; Redis runs no other command between the check and the {@code SET}. A missing key has no
   * tag, so a deleted object's tag matches nothing. The tag stands for the content: the same bytes
   * stored again keep the tag and still match. Needs scripting ({@code EVAL}) allowed for this
   * user.
   */
  @Override
  public CompletableFuture<Boolean> putIfMatch(
      ObjectKey key, byte[] data, Optional<String> ifMatch) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ifMatch, "ifMatch");
    // Copied now: the caller may reuse its array as soon as the call returns.
    byte[] copy = Objects.requireNonNull(data, "data").clone();
    byte[] k = redisKey(key);
    byte[] mode = (ifMatch.isPresent() ? "1" : "0").getBytes(StandardCharsets.US_ASCII);
    byte[] tag = ifMatch.orElse("").getBytes(StandardCharsets.UTF_8);
    return call(
        () -> {
          Object reply = run(putIfMatchScript, k, mode, tag, copy);
          if (!(reply instanceof Long stored) || (stored != 0 && stored != 1)) {
            throw new CloudException(id, Kind.OTHER, "unexpected answer to the conditional put");
          }
          return stored == 1;
        });
  }

  @Override
  public CompletableFuture<Void> delete(ObjectKey key) {
    Objects.requireNonNull(key, "key");
    return call(
        () -> {
          client.del(redisKey(key));
          return null;
        });
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    byte[] pattern = (glob(keyPrefixText + prefix) + "*").getBytes(StandardCharsets.UTF_8);
    return call(
        () -> {
          List<ObjectInfo> out = new ArrayList<>();
          ScanParams params = new ScanParams().match(pattern).count(1000);
          byte[] cursor = ScanParams.SCAN_POINTER_START_BINARY;
          do {
            ScanResult<byte[]> page = client.scan(cursor, params);
            for (byte[] k : page.getResult()) {
              // STRLEN of a key deleted since the scan is 0; such keys are left out.
              long size = client.strlen(k);
              if (size > 0 || client.exists(k)) {
                out.add(new ObjectInfo(ObjectKey.of(name(k)), size));
              }
            }
            cursor = page.getCursorAsBytes();
          } while (!Arrays.equals(cursor, ScanParams.SCAN_POINTER_START_BINARY));
          // SCAN may return a key more than once and in no order.
          out.sort(Comparator.comparing(ObjectInfo::key));
          List<ObjectInfo> unique = new ArrayList<>(out.size());
          for (ObjectInfo info : out) {
            if (unique.isEmpty() || !unique.get(unique.size() - 1).key().equals(info.key())) {
              unique.add(info);
            }
          }
          return unique;
        });
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    pool.shutdown();
    client.close();
  }

  @Override
  public String toString() {
    return "RedisCloud[" + id + ", prefix=" + keyPrefixText + "]";
  }

  private <T> CompletableFuture<T> call(Callable<T> body) {
    if (closed) {
      return CompletableFuture.failedFuture(
          new CloudException(id, Kind.UNAVAILABLE, "driver is closed"));
    }
    return BlockingCalls.submit(pool, body, this::translate);
  }

  /** A Lua script and the server's name for it (SHA-1, hex) once loaded; null before. */
  private static final class Script {
    final byte[] text;
    volatile String sha;

    Script(byte[] text) {
      this.text = text;
    }
  }

  /**
   * Runs {@code script} with the one key {@code k} and {@code args}: by its SHA-1 ({@code
   * EVALSHA}), loading it first if this driver has not yet, and whole ({@code EVAL}, which loads it
   * again) if the server no longer knows it (a restart, {@code SCRIPT FLUSH}).
   */
  private Object run(Script script, byte[] k, byte[]... args) {
    String sha = script.sha;
    if (sha == null) {
      sha = new String(client.scriptLoad(script.text, k), StandardCharsets.US_ASCII);
      script.sha = sha;
    }
    byte[][] params = new byte[args.length + 1][];
    params[0] = k;
    System.arraycopy(args, 0, params, 1, args.length);
    try {
      return client.evalsha(sha.getBytes(StandardCharsets.US_ASCII), 1, params);
    } catch (JedisNoScriptException e) {
      return client.eval(script.text, 1, params);
    }
  }

  private byte[] redisKey(ObjectKey key) {
    byte[] name = key.value().getBytes(StandardCharsets.UTF_8);
    byte[] k = Arrays.copyOf(keyPrefix, keyPrefix.length + name.length);
    System.arraycopy(name, 0, k, keyPrefix.length, name.length);
    return k;
  }

  private String name(byte[] redisKey) {
    return new String(
        redisKey, keyPrefix.length, redisKey.length - keyPrefix.length, StandardCharsets.UTF_8);
  }

  /** Escapes the glob characters of a SCAN MATCH pattern. */
  static String glob(String literal) {
    StringBuilder sb = new StringBuilder(literal.length() + 8);
    for (int i = 0; i < literal.length(); i++) {
      char c = literal.charAt(i);
      if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\' || c == '^' || c == '-') {
        sb.append('\\');
      }
      sb.append(c);
    }
    return sb.toString();
  }

  /** Maps a Jedis failure to a {@link CloudException} of this cloud. */
  Throwable translate(Throwable t) {
    if (t instanceof CloudException) {
      return t;
    }
    String message = String.valueOf(t.getMessage());
    if (closed || t instanceof java.util.concurrent.RejectedExecutionException) {
      return new CloudException(id, Kind.UNAVAILABLE, "driver is closed", t);
    }
    if (t instanceof JedisConnectionException) {
      return new CloudException(id, Kind.UNAVAILABLE, message, t);
    }
    if (t instanceof JedisAccessControlException
        || message.startsWith("NOAUTH")
        || message.startsWith("WRONGPASS")
        || message.startsWith("NOPERM")) {
      return new CloudException(id, Kind.UNAUTHORIZED, message, t);
    }
    if (t instanceof JedisDataException
        && (message.startsWith("LOADING")
            || message.startsWith("BUSY")
            || message.startsWith("MASTERDOWN")
            || message.startsWith("TRYAGAIN"))) {
      return new CloudException(id, Kind.UNAVAILABLE, message, t);
    }
    if (t instanceof JedisDataException && message.startsWith("OOM")) {
      return new CloudException(id, Kind.THROTTLED, message, t);
    }
    return new CloudException(id, Kind.OTHER, t.getClass().getSimpleName() + ": " + message, t);
  }

  private static String[] userInfo(URI uri) {
    String info = uri.getUserInfo();
    if (info == null || info.isEmpty()) {
      return new String[2];
    }
    int colon = info.indexOf(':');
    if (colon < 0) {
      return new String[] {null, info};
    }
    String user = info.substring(0, colon);
    return new String[] {user.isEmpty() ? null : user, info.substring(colon + 1)};
  }

  /**
   * Settings of a {@link RedisCloud}. Required: {@link #uri(URI)}. The password comes from the
   * URI's user info or {@link #password(String)}; none is needed for a server without AUTH.
   *
   * <p>Timeouts (see {@link DriverBuilder}): connect 5 s, read 30 s by default.
   */
  public static final class Builder extends DriverBuilder<Builder> {
    private URI uri;
    private String keyPrefix = "rafestore/";
    private String password;
    private int database;
    private int maxConnections = 8;

    private Builder(String id) {
      super(id, Duration.ofSeconds(30));
    }

    @Override
    protected Builder self() {
      return this;
    }

    /** Server address, {@code redis://[user:password@]host[:port][/database]}. Required. */
    public Builder uri(URI value) {
      this.uri = value;
      return this;
    }

    /** Prefix of every key this store writes; distinct stores on one server need distinct ones. */
    public Builder keyPrefix(String value) {
      this.keyPrefix = value;
      return this;
    }

    /** AUTH password, overriding one in the URI. */
    public Builder password(String value) {
      this.password = value;
      return this;
    }

    /** Logical database index, 0 to 15 on a default server. Default 0 or the URI's path. */
    public Builder database(int value) {
      this.database = value;
      return this;
    }

    /** Most concurrent requests (pooled connections and threads), 1 to 1024. Default 8. */
    public Builder maxConnections(int value) {
      this.maxConnections = value;
      return this;
    }

    /** Validates the settings and opens the driver (connections are made lazily). */
    public RedisCloud build() {
      return prepare().get();
    }

    /**
     * {@link #build()} in two steps, for {@link RedisDriverProvider#prepare}: checks the settings
     * now, throwing as {@code build()} does; the supplier builds the client (Jedis' pool, no
     * connection yet). The builder must not change after this call.
     */
    Supplier<RedisCloud> prepare() {
      checkCommon();
      if (uri == null) {
        throw new IllegalArgumentException("uri is required (redis://host:port)");
      }
      if (!"redis".equals(uri.getScheme()) || uri.getHost() == null) {
        throw new IllegalArgumentException(
            "uri must look like redis://host:port, was " + uri.getScheme() + "://" + uri.getHost());
      }
      String path = uri.getPath();
      if (path != null && path.length() > 1 && database == 0) {
        try {
          database = Integer.parseInt(path.substring(1));
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("uri path must be a database index, was " + path, e);
        }
      }
      if (keyPrefix == null) {
        throw new IllegalArgumentException("keyPrefix must not be null");
      }
      if (database < 0) {
        throw new IllegalArgumentException("database must be >= 0, was " + database);
      }
      checkRange("maxConnections", maxConnections, 1, 1024);
      return () -> new RedisCloud(this);
    }
  }
}
