package io.rafestore.examples.forum;

import io.rafestore.CloudRole;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.Scheduler;
import io.rafestore.SigningKeys;
import io.rafestore.cache.CaffeineValueCache;
import io.rafestore.clouds.ByzantineCloud;
import io.rafestore.clouds.DirectoryCloud;
import io.rafestore.clouds.FaultyCloud;
import io.rafestore.clouds.WanEmulator;
import io.rafestore.config.CloudConfig;
import io.rafestore.config.StoreConfig;
import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the forum's {@link RafeStore} comes from. Every way of building the store is here and
 * nowhere else, so another source (a configuration file of real clouds or emulators) is one more
 * factory method.
 */
final class ForumStores {
  /** The writer id the forum signs its posts with. */
  static final String WRITER = "forum";

  /**
   * The paper's Table 1 round-trip times in milliseconds (p0 a local Redis, p1 to p3 remote
   * clouds), as in {@code rafestore-bench/src/main/resources/profiles/paper-table1.properties}.
   */
  static final double[] TABLE1_RTT_MS = {5, 315, 750, 1200};

  /** The profile's bandwidths in bits per second (our choice there; the paper gives none). */
  static final long[] TABLE1_BPS = {100_000_000L, 2_000_000L, 2_000_000L, 2_000_000L};

  static final long CLIENT_LINK_BPS = 100_000_000L;

  /** The demo's time scale: every round trip a tenth of the paper's, bandwidths ten times. */
  static final double DEMO_TIME_SCALE = 0.1;

  private ForumStores() {}

  /**
   * A store and a line describing it for the status panel; closing it closes the store and releases
   * the data directory.
   */
  record Opened(RafeStore store, String description, Closeable release, Optional<Demo> demo)
      implements AutoCloseable {
    Opened {
      Objects.requireNonNull(store, "store");
      Objects.requireNonNull(description, "description");
      Objects.requireNonNull(release, "release");
      Objects.requireNonNull(demo, "demo");
    }

    Opened(RafeStore store, String description, Closeable release) {
      this(store, description, release, Optional.empty());
    }

    @Override
    public void close() throws IOException {
      try {
        store.close();
      } finally {
        release.close();
      }
    }
  }

  /**
   * What the embedded store adds for the demo: the recorder of every cloud's requests (the status
   * panel's timeline) and the fault switches of the {@code /faults} page.
   */
  record Demo(RequestRecorder recorder, FaultControl faults, RafeStore readBack) {
    Demo {
      Objects.requireNonNull(recorder, "recorder");
      Objects.requireNonNull(faults, "faults");
      Objects.requireNonNull(readBack, "readBack");
    }
  }

  /** The forum's read tier: verified post bytes in memory (see design.md, "The read tier"). */
  static final long CACHE_BYTES = 32L * 1024 * 1024;

  /** A new cache for one store. */
  static CaffeineValueCache cache() {
    return CaffeineValueCache.builder().maximumBytes(CACHE_BYTES).build();
  }

  /**
   * The embedded default: four {@link DirectoryCloud}s {@code p0..p3} under {@code dataDir}, behind
   * a {@link WanEmulator} with the paper's Table 1 profile times {@code timeScale}, in the paper's
   * Configuration 1 (data on p0 and p1, p2 writeDf's extra, p3 metadata only), f = 1, {@link
   * ProtocolMode#PAPER}. No server, no account.
   *
   * <p>For the demo each cloud is, from the store inwards: a {@link RequestRecorder} (timing
   * requests for the timeline), a {@link FaultyCloud} (crash, slow down), the WAN link, a {@link
   * ByzantineCloud} (corrupt or stale answers about what is stored), the directory. All are correct
   * until the {@code /faults} page switches one.
   *
   * <p>The writer's Ed25519 key is generated on first use and kept in {@code dataDir/writer.key}
   * (owner-only permissions where the file system has them), so the forum reads its own posts after
   * a restart. A writer id must be used by one client at a time, so {@code dataDir} is locked while
   * the store is open: a second forum on the same directory is refused.
   *
   * @param timeScale multiplies every round trip and divides every bandwidth; {@code (0, 1]}
   * @throws IOException if the directory cannot be used or is in use
   */
  static Opened embedded(Path dataDir, double timeScale) throws IOException {
    if (!(timeScale > 0 && timeScale <= 1)) {
      throw new IllegalArgumentException("timeScale must be in (0, 1], was " + timeScale);
    }
    Files.createDirectories(dataDir);
    FileChannel lockChannel =
        FileChannel.open(
            dataDir.resolve("forum.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock = tryLock(lockChannel);
    if (lock == null) {
      lockChannel.close();
      throw new IOException(
          "data directory " + dataDir + " is in use by another forum (forum.lock is held)");
    }
    List<DirectoryCloud> opened = new ArrayList<>();
    try {
      KeyPair keys = writerKey(dataDir.resolve("writer.key"));
      Scheduler scheduler = Scheduler.system();
      RequestRecorder recorder = new RequestRecorder();
      Map<String, FaultControl.Switches> switches = new LinkedHashMap<>();
      WanEmulator wan =
          WanEmulator.builder(scheduler)
              .uplinkBitsPerSecond(scaled(CLIENT_LINK_BPS, timeScale))
              .downlinkBitsPerSecond(scaled(CLIENT_LINK_BPS, timeScale))
              .build();
      RafeStore.Builder builder =
          RafeStore.builder()
              .faultsTolerated(1)
              .mode(ProtocolMode.PAPER)
              .writer(WRITER, keys)
              .scheduler(scheduler)
              .operationTimeout(Duration.ofSeconds(60))
              // The forum shows the paper's phases (writeDo, the crucial check, writeDf): posts
              // are stored as data objects, not inline in the signed log.
              .inlineThreshold(0)
              .dataCloudsInOrderAdded(true);
      for (int i = 0; i < TABLE1_RTT_MS.length; i++) {
        DirectoryCloud cloud = DirectoryCloud.open("p" + i, dataDir.resolve("p" + i));
        opened.add(cloud);
        Duration rtt = Duration.ofNanos(Math.round(TABLE1_RTT_MS[i] * timeScale * 1_000_000));
        ByzantineCloud byzantine = new ByzantineCloud(cloud, 1000L + i);
        FaultyCloud faulty =
            new FaultyCloud(
                wan.wrap(
                    byzantine,
                    WanEmulator.Link.rtt(rtt)
                        .jitter(0.05)
                        .bandwidthBitsPerSecond(scaled(TABLE1_BPS[i], timeScale))),
                scheduler,
                2000L + i);
        switches.put(cloud.id(), new FaultControl.Switches(faulty, byzantine));
        builder.cloud(
            recorder.wrap(faulty),
            i == 3 ? CloudRole.METADATA_ONLY : CloudRole.DATA_AND_METADATA,
            rtt);
      }
      FaultControl faults = new FaultControl(switches, 1);
      // The faults page reads back through a client of its own with no cache, so that a faulty
      // cloud's answers are seen (and masked) there; the forum's pages read through the cache.
      // It only reads: it never signs under the writer's id, which stays the store's alone.
      RafeStore readBack = builder.listener(faults).closeDrivers(false).build();
      RafeStore store = builder.listener(faults).closeDrivers(true).valueCache(cache()).build();
      String description =
          String.format(
              "4 directory clouds under %s behind an emulated WAN (paper Table 1 x %s:"
                  + " p0 %s ms, p1 %s ms, p2 %s ms, p3 %s ms); data on p0, p1, p2 is writeDf's"
                  + " extra, p3 holds metadata only; f=1, mode PAPER",
              dataDir.toAbsolutePath(),
              timeScale,
              ms(0, timeScale),
              ms(1, timeScale),
              ms(2, timeScale),
              ms(3, timeScale));
      return new Opened(
          store,
          description,
          () -> {
            try {
              readBack.close();
              lock.release();
            } finally {
              lockChannel.close();
            }
          },
          Optional.of(new Demo(recorder, faults, readBack)));
    } catch (IOException | RuntimeException e) {
      for (DirectoryCloud c : opened) {
        c.close();
      }
      lock.release();
      lockChannel.close();
      throw e;
    }
  }

  /**
   * A store described by a configuration file (see docs/cli.md): real clouds or the local
   * emulators, with the file's f, mode, writer key and trusted writers. The forum posts as the
   * file's writer, so the file must name one.
   *
   * @throws io.rafestore.config.ConfigException naming the file, line and key of a problem, or that
   *     the file has no writer
   * @throws IOException if the file or a key file cannot be read
   */
  static Opened fromConfig(Path file) throws IOException {
    StoreConfig config = StoreConfig.load(file);
    if (config.writer().isEmpty()) {
      throw new IOException(
          file + " has no writer (writer.id and writer.key): the forum needs one to post");
    }
    RafeStore store = config.open(b -> b.valueCache(cache()));
    List<String> ids = new ArrayList<>();
    for (CloudConfig c : config.clouds()) {
      ids.add(c.id() + " (" + c.spec().type() + ", " + c.role() + ")");
    }
    String description =
        String.format(
            "%d clouds from %s: %s; f=%d, mode %s",
            ids.size(),
            file.toAbsolutePath(),
            String.join(", ", ids),
            config.faultsTolerated(),
            config.mode());
    return new Opened(store, description, () -> {});
  }

  /** The lock, or null if another process or another forum in this JVM holds it. */
  private static FileLock tryLock(FileChannel channel) throws IOException {
    try {
      return channel.tryLock();
    } catch (OverlappingFileLockException e) {
      return null;
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  private static String ms(int cloud, double scale) {
    return java.math.BigDecimal.valueOf(TABLE1_RTT_MS[cloud] * scale)
        .setScale(3, java.math.RoundingMode.HALF_UP)
        .stripTrailingZeros()
        .toPlainString();
  }

  private static long scaled(long bps, double timeScale) {
    return Math.max(1, Math.round(bps / timeScale));
  }

  /** Loads the writer key from {@code file}, or generates and saves one. */
  private static KeyPair writerKey(Path file) throws IOException {
    if (Files.exists(file)) {
      List<String> lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
      if (lines.size() < 2) {
        throw new IOException(file + " must hold two lines: public and private key (Base64)");
      }
      try {
        return new KeyPair(
            SigningKeys.decodePublic(lines.get(0).strip()),
            SigningKeys.decodePrivate(lines.get(1).strip()));
      } catch (IllegalArgumentException e) {
        throw new IOException(file + " does not hold an Ed25519 key pair: " + e.getMessage(), e);
      }
    }
    KeyPair keys = SigningKeys.generate();
    String text =
        SigningKeys.encodePublic(keys.getPublic())
            + "\n"
            + SigningKeys.encodePrivate(keys.getPrivate())
            + "\n";
    // Written to a private temporary file and renamed into place, so a crash never leaves a
    // half-written key behind.
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.deleteIfExists(tmp);
    try {
      Files.createFile(
          tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException e) {
      Files.createFile(tmp); // not a POSIX file system
    }
    Files.writeString(tmp, text, StandardCharsets.US_ASCII);
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
    return keys;
  }
}
