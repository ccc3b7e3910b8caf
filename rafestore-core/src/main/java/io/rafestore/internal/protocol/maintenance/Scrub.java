package io.rafestore.internal.protocol.maintenance;

import io.rafestore.KeyPage;
import io.rafestore.RafeStoreException;
import io.rafestore.RepairReport;
import io.rafestore.ScrubEvent;
import io.rafestore.ScrubOptions;
import io.rafestore.ScrubStatus;
import io.rafestore.Scrubber;
import io.rafestore.VerifyReport;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.context.Loop;
import io.rafestore.spi.support.Futures;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The background scrubber ({@link Scrubber}): a {@link Loop} over the store's keys, a page of the
 * key listing at a time ({@link Listings#keys}, as verifyAll walks them), that verifies or repairs
 * one key at a time ({@link Verifier}) in a context whose every request goes through a {@link
 * ScrubPacer} (one request per cloud at a time, within the budgets, giving way to the foreground),
 * and writes its cursor and counters to its {@link ScrubState} file after each key.
 *
 * <p>Thread-safe: the state is guarded by this object's lock; the loop runs one turn at a time.
 */
public final class Scrub implements Scrubber {
  /** How long the walk waits before asking again for a page of keys the clouds would not give. */
  static final Duration RETRY = Duration.ofMinutes(1);

  /**
   * The bound on each request through the scrub context: effectively none, because the pacer bounds
   * each request from when it is sent (a request may wait its turn far longer than the client's
   * request limit).
   */
  private static final Duration QUEUED = Duration.ofDays(30);

  private final Context ctx;
  private final ScrubOptions options;
  private final Totals totals;
  private final String store;

  private final CompletableFuture<ScrubStatus> done = new CompletableFuture<>();
  private ScrubState state;
  private ScrubStatus.State phase = ScrubStatus.State.NEW;
  private Optional<String> note = Optional.empty();
  private volatile ScrubPacer pacer;
  private volatile Context paced;
  private CompletableFuture<Void> loop;
  private KeyPage page;
  private int index;
  private int passesThisRun;
  private boolean stopping;

  /**
   * A scrubber over {@code ctx}'s clouds (not started); {@code totals} collects every scrub's
   * per-cloud counts for the client's stats.
   */
  public Scrub(Context ctx, ScrubOptions options, Totals totals) {
    this.ctx = ctx;
    this.options = options;
    this.totals = totals;
    List<String> ids = new ArrayList<>();
    ctx.clouds.forEach(c -> ids.add(c.id()));
    this.store = String.join(",", ids);
    this.state = new ScrubState(store);
  }

  @Override
  public ScrubOptions options() {
    return options;
  }

  @Override
  public CompletableFuture<ScrubStatus> start() {
    Optional<String> reset;
    Context walkIn;
    synchronized (this) {
      if (phase != ScrubStatus.State.NEW) {
        return done;
      }
      phase = ScrubStatus.State.RUNNING;
      if (options.stateFile().isPresent()) {
        ScrubState.Loaded loaded = ScrubState.load(options.stateFile().get(), store);
        state = loaded.state();
        note = loaded.problem();
      }
      pacer = new ScrubPacer(ctx, options, ctx.requestLimit, new Spending());
      paced = ctx.withDrivers(pacer::wrap, QUEUED);
      reset = note;
      walkIn = paced;
    }
    reset.ifPresent(
        n -> ctx.observer.scrub(new ScrubEvent(ScrubEvent.Kind.STATE_RESET, "", "", n)));
    CompletableFuture<Void> l = Loop.repeat(walkIn, this::turn);
    synchronized (this) {
      loop = l;
    }
    Futures.onEnd(l, (x, e) -> end(e));
    return done;
  }

  @Override
  public CompletableFuture<ScrubStatus> stop() {
    CompletableFuture<Void> l;
    synchronized (this) {
      stopping = true;
      if (phase == ScrubStatus.State.NEW) {
        phase = ScrubStatus.State.STOPPED;
        done.complete(snapshot());
        return done;
      }
      l = loop;
    }
    if (l != null) {
      l.completeExceptionally(new RafeStoreException("the scrub was stopped"));
    }
    return done;
  }

  @Override
  public synchronized ScrubStatus status() {
    return snapshot();
  }

  private ScrubStatus snapshot() {
    return new ScrubStatus(
        phase,
        state.pass,
        Optional.ofNullable(state.cursor),
        state.keysThisPass,
        state.keysChecked,
        state.passesCompleted,
        state.damageFound,
        state.repaired,
        state.repairFailed,
        state.oneFaultFromLoss,
        state.lost,
        state.requests,
        state.egressBytes,
        state.dollars,
        note);
  }

  /** The loop ended: by itself (done), stopped, by the client's close, or a state file failure. */
  private void end(Throwable e) {
    ScrubPacer p;
    Context c;
    synchronized (this) {
      p = pacer;
      c = paced;
    }
    p.close();
    c.close();
    Throwable cause = e == null ? null : Futures.unwrap(e);
    ScrubStatus last;
    synchronized (this) {
      boolean failed = cause instanceof StateFileException;
      phase = e == null && !stopping ? ScrubStatus.State.DONE : ScrubStatus.State.STOPPED;
      if (!failed) {
        try {
          save();
        } catch (IOException io) {
          cause = new StateFileException(io);
          failed = true;
        }
      }
      if (failed) {
        note = Optional.of(cause.getMessage());
      }
      last = snapshot();
      if (failed) {
        done.completeExceptionally(cause);
        return;
      }
    }
    done.complete(last);
  }

  /** One turn: the next key, the next page of keys, or the end of a pass. */
  private CompletableFuture<Boolean> turn() {
    String key;
    String after;
    synchronized (this) {
      if (stopping) {
        return CompletableFuture.completedFuture(false);
      }
      if (page != null && index < page.keys().size()) {
        key = page.keys().get(index++);
        after = null;
      } else if (page != null && page.next().isEmpty()) {
        return passEnded();
      } else {
        key = null;
        after = state.cursor;
      }
    }
    if (key != null) {
      return check(key).thenApply(x -> true);
    }
    CompletableFuture<KeyPage> next = Listings.keys(paced, after, Listings.PAGE);
    return Loop.tied(
        next,
        next.handle(
                (p, e) -> {
                  if (e == null) {
                    synchronized (this) {
                      page = p;
                      index = 0;
                    }
                    return CompletableFuture.completedFuture(true);
                  }
                  // The clouds would not list (more than f failing): try again later, from here.
                  synchronized (this) {
                    note = Optional.of("listing keys failed: " + Futures.unwrap(e).getMessage());
                  }
                  return delay(RETRY);
                })
            .thenCompose(f -> f));
  }

  /** A pass ended: count it, then end the scrub or wait for the next pass. Holds the lock. */
  private CompletableFuture<Boolean> passEnded() {
    state.passesCompleted++;
    long finished = state.pass;
    state.pass++;
    state.cursor = null;
    state.keysThisPass = 0;
    page = null;
    passesThisRun++;
    boolean last = options.passes() > 0 && passesThisRun >= options.passes();
    try {
      save();
    } catch (IOException e) {
      return CompletableFuture.failedFuture(new StateFileException(e));
    }
    ctx.observer.scrub(
        new ScrubEvent(
            ScrubEvent.Kind.PASS_COMPLETED, "", "", "pass " + finished + " over every key ended"));
    if (last) {
      return CompletableFuture.completedFuture(false);
    }
    phase = ScrubStatus.State.PAUSED;
    return delay(options.pauseBetweenPasses())
        .thenApply(
            x -> {
              synchronized (this) {
                if (phase == ScrubStatus.State.PAUSED) {
                  phase = ScrubStatus.State.RUNNING;
                }
              }
              return true;
            });
  }

  /** A future that completes with true after {@code d} on the client's scheduler. */
  private CompletableFuture<Boolean> delay(Duration d) {
    CompletableFuture<Boolean> f = new CompletableFuture<>();
    io.rafestore.Scheduler.Cancellable t =
        ctx.settings.scheduler().schedule(d, () -> f.complete(true));
    Futures.onEnd(f, (r, e) -> t.cancel());
    return f;
  }

  /** Verifies (or repairs) {@code key}, counts and reports what it found, and saves the state. */
  private CompletableFuture<Void> check(String key) {
    // Once stopped, a check still running sees its queued requests cancelled and may complete with
    // a report of unreachable clouds: it is neither counted nor taken as finished.
    CompletableFuture<Void> op =
        options.dryRun()
            ? Verifier.verify(paced, key).thenAccept(r -> found(key, r, null))
            : Verifier.repair(paced, key).thenAccept(r -> found(key, r.before(), r));
    return Loop.tied(
        op,
        op.handle(
            (x, e) -> {
              synchronized (this) {
                if (stopping) {
                  throw new java.util.concurrent.CancellationException("the scrub was stopped");
                }
                if (e != null) {
                  Throwable cause = Futures.unwrap(e);
                  if (cause instanceof java.util.concurrent.CancellationException) {
                    throw new CompletionException(cause);
                  }
                  // A key whose check failed outright is noted and left for the next pass.
                  note = Optional.of("checking '" + key + "' failed: " + cause.getMessage());
                }
                state.cursor = key;
                state.keysThisPass++;
                state.keysChecked++;
                try {
                  save();
                } catch (IOException io) {
                  throw new CompletionException(new StateFileException(io));
                }
              }
              return null;
            }));
  }

  /** Counts and reports what verify (and repair, if {@code repaired}) found and did. */
  private void found(String key, VerifyReport before, RepairReport repaired) {
    synchronized (this) {
      if (stopping) {
        return;
      }
    }
    List<ScrubEvent> events = new ArrayList<>();
    Map<String, Integer> foundOn = new HashMap<>();
    for (VerifyReport.Finding f : before.findings()) {
      foundOn.merge(f.cloudId(), 1, Integer::sum);
      events.add(
          new ScrubEvent(
              ScrubEvent.Kind.DAMAGE_FOUND,
              key,
              f.cloudId(),
              f.problem() + " " + f.subject() + ": " + f.detail()));
    }
    VerifyReport now = repaired == null ? before : repaired.after();
    if (repaired != null) {
      for (String a : repaired.actions()) {
        events.add(new ScrubEvent(ScrubEvent.Kind.REPAIRED, key, cloudOf(a), a));
      }
      for (String a : repaired.failures()) {
        events.add(new ScrubEvent(ScrubEvent.Kind.REPAIR_FAILED, key, cloudOf(a), a));
      }
      // A superseded copy (the cloud's log changed since the verify, its writer wrote) is neither
      // repaired nor failed: the verify after the repair says what the cloud holds now, and a
      // cloud still behind is found again on the next pass.
    }
    long risky = 0;
    long lost = 0;
    for (VerifyReport.Margin m : now.margins()) {
      if (m.oneFaultFromLoss()) {
        risky++;
        events.add(new ScrubEvent(ScrubEvent.Kind.ONE_FAULT_FROM_LOSS, key, "", m.toString()));
      } else if (m.lost()) {
        lost++;
        events.add(new ScrubEvent(ScrubEvent.Kind.LOST, key, "", m.toString()));
      }
    }
    synchronized (this) {
      state.damageFound += before.findings().size();
      if (repaired != null) {
        state.repaired += repaired.actions().size();
        state.repairFailed += repaired.failures().size();
      }
      state.oneFaultFromLoss += risky;
      state.lost += lost;
    }
    for (Cloud c : ctx.clouds) {
      int was = foundOn.getOrDefault(c.id(), 0);
      int left = repaired == null ? was : repaired.after().findingsFor(c.id()).size();
      if (was > 0) {
        totals.add(c.id(), 0, 0, was, repaired == null ? 0 : Math.max(0, was - left));
      }
    }
    events.forEach(ctx.observer::scrub);
  }

  /** The cloud a repair line names first ("p1: data ..."), or "" if none. */
  private String cloudOf(String line) {
    int colon = line.indexOf(':');
    String id = colon < 0 ? "" : line.substring(0, colon);
    return ctx.byId.containsKey(id) ? id : "";
  }

  /** Writes the state file, if there is one. Holds the lock. */
  private void save() throws IOException {
    if (options.stateFile().isPresent()) {
      state.save(options.stateFile().get());
    }
  }

  /** What the pacer spent, into the state's counters and the client's per-cloud totals. */
  private final class Spending implements ScrubPacer.Spent {
    @Override
    public void request(String cloud, double dollars) {
      synchronized (Scrub.this) {
        state.requests++;
        state.dollars += dollars;
      }
      totals.add(cloud, 1, 0, 0, 0);
    }

    @Override
    public void bytes(String cloud, long bytes, double dollars) {
      synchronized (Scrub.this) {
        state.egressBytes += bytes;
        state.dollars += dollars;
      }
      totals.add(cloud, 0, bytes, 0, 0);
    }
  }

  /** The state file could not be written: the scrub ends with this failure. */
  private static final class StateFileException extends RafeStoreException {
    private static final long serialVersionUID = 1L;

    StateFileException(IOException cause) {
      super("the scrub's state file could not be written: " + cause, cause);
    }
  }

  /** Per-cloud totals of every scrub of one client, for {@code RafeStore.stats()}. Thread-safe. */
  public static final class Totals {
    private final Map<String, long[]> byCloud = new HashMap<>();

    synchronized void add(String cloud, long requests, long bytes, long findings, long repairs) {
      long[] t = byCloud.computeIfAbsent(cloud, c -> new long[4]);
      t[0] += requests;
      t[1] += bytes;
      t[2] += findings;
      t[3] += repairs;
    }

    /** Requests, bytes downloaded, findings and repairs of the scrubs on {@code cloud}. */
    public synchronized long[] of(String cloud) {
      return byCloud.getOrDefault(cloud, new long[4]).clone();
    }
  }
}
