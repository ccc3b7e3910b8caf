package io.rafestore.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.rafestore.CloudFault;
import io.rafestore.CloudRequest;
import io.rafestore.OperationReceipt;
import io.rafestore.PhaseTiming;
import io.rafestore.RafeStoreListener;
import io.rafestore.ReadReceipt;
import io.rafestore.WriteReceipt;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Micrometer meters for a RafeStore client, fed by its {@link #listener() listener}:
 *
 * <pre>{@code
 * RafeStoreMetrics metrics = new RafeStoreMetrics();
 * metrics.bindTo(registry);
 * RafeStore store = RafeStore.builder() ... .listener(metrics.listener()).build();
 * }</pre>
 *
 * <p>The meters, all with the tags given to the constructor (tag values in lower case):
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>Name</th><th>Type</th><th>Tags</th><th>What</th></tr>
 *   <tr><td>{@code rafestore.cloud.requests}</td><td>counter</td><td>cloud, kind, outcome</td>
 *       <td>requests to each cloud as they ended ({@code kind} put, get, delete, list;
 *       {@code outcome} ok, not_found, throttled, timeout, failed, cancelled)</td></tr>
 *   <tr><td>{@code rafestore.cloud.bytes}</td><td>counter (bytes)</td><td>cloud, direction</td>
 *       <td>payload bytes sent ({@code up}) and received ({@code down})</td></tr>
 *   <tr><td>{@code rafestore.cloud.latency}</td><td>timer</td><td>cloud, kind</td>
 *       <td>time of each answered request (ok or not_found)</td></tr>
 *   <tr><td>{@code rafestore.tenant.requests}</td><td>counter</td><td>tenant, kind</td>
 *       <td>requests made on behalf of each tenant ({@code RafeStore.forTenant}; {@code default}
 *       for the client itself), over all clouds</td></tr>
 *   <tr><td>{@code rafestore.tenant.bytes}</td><td>counter (bytes)</td><td>tenant, direction</td>
 *       <td>payload bytes each tenant's requests sent ({@code up}) and received ({@code
 *       down})</td></tr>
 *   <tr><td>{@code rafestore.tenant.operations}</td><td>timer</td><td>tenant, outcome</td>
 *       <td>every call of the client's API by the tenant it was made for (its latencies; a
 *       registry with percentile histograms gives each tenant's percentiles)</td></tr>
 *   <tr><td>{@code rafestore.cloud.faults}</td><td>counter</td><td>cloud, kind</td>
 *       <td>faults the protocol saw on each cloud ({@link CloudFault.Kind}: error, corrupt_data,
 *       bad_signature, ...); registered at zero for every kind when a cloud is first seen</td></tr>
 *   <tr><td>{@code rafestore.operations}</td><td>timer</td><td>operation, outcome</td>
 *       <td>every call of the client's API as it ended ({@code operation} write, read,
 *       ranged_read, stream_read, history, delete, collect, collect_orphans, purge, verify,
 *       repair, verify_all, repair_all, keys, probe; {@code outcome} ok, not_found, integrity,
 *       unavailable, timeout, cancelled, failed: {@link OperationReceipt.Outcome})</td></tr>
 *   <tr><td>{@code rafestore.writes.writedf}</td><td>counter</td><td></td>
 *       <td>writes whose crucial check failed, so writeDf ran: divided by the count of {@code
 *       rafestore.operations{operation=write,outcome=ok}}, the writeDf rate</td></tr>
 *   <tr><td>{@code rafestore.phases}</td><td>timer</td><td>phase</td>
 *       <td>each phase of each operation ({@code writeDo}, {@code readM}, {@code writeDf},
 *       {@code writeM}, {@code dataFetch})</td></tr>
 *   <tr><td>{@code rafestore.reads.served}</td><td>counter</td><td>cloud</td>
 *       <td>reads whose value each cloud served; {@code (cache)} for the read tier's cache</td></tr>
 *   <tr><td>{@code rafestore.cache.discarded}</td><td>counter</td><td>kind</td>
 *       <td>units and cache files the read tier dropped instead of serving (corrupt,
 *       truncated, foreign, io_error)</td></tr>
 * </table>
 *
 * <p>Events that arrive before the first {@link #bindTo} are not counted. The binder may be bound
 * to several registries; each gets every meter. One instance may serve several clients (their
 * figures add up); give each its own instance and tags to tell them apart.
 *
 * <p><b>Thread-safety.</b> Safe for concurrent use: the listener is called from the client's
 * threads, concurrently.
 */
public final class RafeStoreMetrics implements MeterBinder {
  private final Tags tags;
  private final List<Meters> bound = new CopyOnWriteArrayList<>();

  /** Meters without extra tags. */
  public RafeStoreMetrics() {
    this(Tags.empty());
  }

  /** Meters that all carry {@code tags} (for example the store's name). */
  public RafeStoreMetrics(Iterable<Tag> tags) {
    this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
  }

  /**
   * A listener to give {@code RafeStore.Builder.listener}; it feeds every bound registry. Each call
   * returns a new view of this binder's meters (it has no state of its own), so one binder can
   * serve several clients.
   */
  public RafeStoreListener listener() {
    return new Feed();
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    bound.add(new Meters(Objects.requireNonNull(registry, "registry"), tags));
  }

  private static String lower(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT);
  }

  /** Turns listener events into meter updates on every bound registry. */
  private final class Feed implements RafeStoreListener {
    @Override
    public void cloudRequest(CloudRequest r) {
      String kind = lower(r.kind());
      boolean answered =
          r.outcome() == CloudRequest.Outcome.OK || r.outcome() == CloudRequest.Outcome.NOT_FOUND;
      for (Meters m : bound) {
        m.seeCloud(r.cloudId());
        m.counter(
                "rafestore.cloud.requests",
                "cloud",
                r.cloudId(),
                "kind",
                kind,
                "outcome",
                lower(r.outcome()))
            .increment();
        if (r.bytes() > 0) {
          m.bytes(r.cloudId(), r.kind() == CloudRequest.Kind.PUT ? "up" : "down")
              .increment(r.bytes());
        }
        if (answered) {
          m.timer("rafestore.cloud.latency", "cloud", r.cloudId(), "kind", kind)
              .record(r.duration());
        }
        // Per tenant (RafeStore.forTenant): requests and payload bytes, summed over clouds.
        m.counter("rafestore.tenant.requests", "tenant", r.tenant(), "kind", kind).increment();
        if (r.bytes() > 0) {
          m.counter(
                  "rafestore.tenant.bytes",
                  "tenant",
                  r.tenant(),
                  "direction",
                  r.kind() == CloudRequest.Kind.PUT ? "up" : "down")
              .increment(r.bytes());
        }
      }
    }

    @Override
    public void cloudFault(String key, CloudFault fault) {
      for (Meters m : bound) {
        m.seeCloud(fault.cloudId());
        m.counter("rafestore.cloud.faults", "cloud", fault.cloudId(), "kind", lower(fault.kind()))
            .increment();
      }
    }

    @Override
    public void phaseCompleted(String key, PhaseTiming phase) {
      for (Meters m : bound) {
        m.timer("rafestore.phases", "phase", phase.phase().paperName()).record(phase.duration());
      }
    }

    @Override
    public void operationCompleted(OperationReceipt receipt) {
      String operation = lower(receipt.kind());
      String outcome = lower(receipt.outcome());
      for (Meters m : bound) {
        m.timer("rafestore.operations", "operation", operation, "outcome", outcome)
            .record(receipt.duration());
        m.timer("rafestore.tenant.operations", "tenant", receipt.tenant(), "outcome", outcome)
            .record(receipt.duration());
      }
    }

    @Override
    public void writeCompleted(WriteReceipt receipt) {
      for (Meters m : bound) {
        if (receipt.writeDfUsed()) {
          m.counter("rafestore.writes.writedf").increment();
        }
      }
    }

    @Override
    public void readCompleted(ReadReceipt receipt) {
      for (Meters m : bound) {
        m.counter("rafestore.reads.served", "cloud", receipt.servedBy()).increment();
      }
    }

    @Override
    public void cacheEvent(io.rafestore.CacheEvent event) {
      for (Meters m : bound) {
        m.counter("rafestore.cache.discarded", "kind", lower(event.kind())).increment();
      }
    }
  }

  /** The meters of one registry, created on first use and kept for the next event. */
  private static final class Meters {
    private final MeterRegistry registry;
    private final Tags tags;
    private final ConcurrentHashMap<List<String>, Counter> counters = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<List<String>, Timer> timers = new ConcurrentHashMap<>();
    private final java.util.Set<String> clouds = ConcurrentHashMap.newKeySet();

    Meters(MeterRegistry registry, Tags tags) {
      this.registry = registry;
      this.tags = tags;
      // Present (at zero) from the start, so a rate over it is defined before the first writeDf.
      counter("rafestore.writes.writedf");
    }

    /** A cloud seen for the first time gets its fault counters at zero, one per kind. */
    void seeCloud(String cloud) {
      if (clouds.add(cloud)) {
        for (CloudFault.Kind k : CloudFault.Kind.values()) {
          counter("rafestore.cloud.faults", "cloud", cloud, "kind", lower(k));
        }
      }
    }

    Counter bytes(String cloud, String direction) {
      List<String> key = List.of("rafestore.cloud.bytes", cloud, direction);
      Counter c = counters.get(key);
      if (c == null) {
        c =
            counters.computeIfAbsent(
                key,
                k ->
                    Counter.builder("rafestore.cloud.bytes")
                        .description("Payload bytes sent to and received from each cloud")
                        .baseUnit("bytes")
                        .tags(tags)
                        .tags("cloud", cloud, "direction", direction)
                        .register(registry));
      }
      return c;
    }

    Counter counter(String name, String... tagPairs) {
      List<String> key = key(name, tagPairs);
      Counter c = counters.get(key);
      if (c == null) {
        c =
            counters.computeIfAbsent(
                key, k -> Counter.builder(name).tags(tags).tags(tagPairs).register(registry));
      }
      return c;
    }

    Timer timer(String name, String... tagPairs) {
      List<String> key = key(name, tagPairs);
      Timer t = timers.get(key);
      if (t == null) {
        t =
            timers.computeIfAbsent(
                key, k -> Timer.builder(name).tags(tags).tags(tagPairs).register(registry));
      }
      return t;
    }

    private static List<String> key(String name, String... tagPairs) {
      String[] all = new String[tagPairs.length + 1];
      all[0] = name;
      System.arraycopy(tagPairs, 0, all, 1, tagPairs.length);
      return List.of(all);
    }
  }
}
