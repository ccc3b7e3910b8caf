package io.rafestore.config;

import io.rafestore.clouds.MemoryCloud;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudSpec;
import io.rafestore.spi.DriverProvider;
import io.rafestore.spi.ForwardingCloud;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Stand-ins for the cloud driver types, which live in modules this one does not depend on: the
 * parser validates type names against the providers on the class path. Each makes an in-memory
 * cloud.
 */
final class FakeProviders {
  private FakeProviders() {}

  private abstract static class Fake implements DriverProvider {
    @Override
    public CloudDriver create(CloudSpec spec) {
      return new MemoryCloud(spec.id());
    }
  }

  /**
   * Type s3: rejects profile {@code missing} and region {@code nowhere} as the real driver rejects
   * an unknown profile or an unusable region, naming the spec's field.
   */
  public static final class S3 extends Fake {
    @Override
    public String type() {
      return "s3";
    }

    @Override
    public CloudDriver create(CloudSpec spec) {
      if ("profile:missing".equals(spec.credentialsRef())) {
        throw new IllegalArgumentException(
            "cloud spec "
                + spec.id()
                + ": 'credentialsRef': profile missing is not in the shared AWS files");
      }
      if ("nowhere".equals(spec.region())) {
        throw new IllegalArgumentException(
            "cloud spec " + spec.id() + ": 'region': region nowhere is not known");
      }
      return super.create(spec);
    }
  }

  /** Type azure. */
  public static final class Azure extends Fake {
    @Override
    public String type() {
      return "azure";
    }
  }

  /** Type redis: fails like a driver whose credentials variable is missing. */
  public static final class Redis extends Fake {
    @Override
    public String type() {
      return "redis";
    }

    @Override
    public CloudDriver create(CloudSpec spec) {
      spec.resolveCredentials();
      return super.create(spec);
    }
  }

  /**
   * Type slow: a driver whose client is built in {@link DriverProvider#prepare}'s second step, like
   * the SDK drivers', and whose build waits until its {@link Gate} (one per bucket name) is
   * released. Option {@code fail}: {@code now} rejects the bucket when the settings are checked,
   * {@code later} rejects the credentials when the client is built.
   */
  public static final class Slow implements DriverProvider {
    static final Map<String, Gate> GATES = new ConcurrentHashMap<>();

    @Override
    public String type() {
      return "slow";
    }

    @Override
    public CloudDriver create(CloudSpec spec) {
      return prepare(spec).get();
    }

    @Override
    public Supplier<CloudDriver> prepare(CloudSpec spec) {
      String fail = spec.option("fail").orElse("");
      if (fail.equals("now")) {
        throw new IllegalArgumentException(
            "cloud spec " + spec.id() + ": 'bucket': refused when the settings are checked");
      }
      Gate gate = GATES.computeIfAbsent(spec.requireBucket(), b -> new Gate());
      return () -> {
        gate.started.countDown();
        try {
          if (!gate.release.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("gate never released");
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
        if (fail.equals("later")) {
          throw new IllegalArgumentException(
              "cloud spec " + spec.id() + ": 'credentialsRef': refused when the client is built");
        }
        return new ForwardingCloud(new MemoryCloud(spec.id())) {
          @Override
          public void close() {
            super.close();
            gate.closed.countDown();
          }
        };
      };
    }
  }

  /** A slow build's controls: when it started, its release, and whether its driver was closed. */
  static final class Gate {
    final CountDownLatch started = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch closed = new CountDownLatch(1);
  }
}
