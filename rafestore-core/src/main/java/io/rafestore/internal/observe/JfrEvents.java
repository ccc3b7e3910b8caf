package io.rafestore.internal.observe;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * The JFR events of RafeStore, all in the category "RafeStore". Operations and phases are duration
 * events (begun when they start, committed when they end, timed by JFR's own clock); faults and
 * cloud requests are committed when they are seen. None records a stack trace: the protocol runs on
 * callbacks, whose stacks say nothing about the caller.
 *
 * <p>Enable them with {@code -XX:StartFlightRecording} (they are on in the default settings) or
 * {@code jdk.jfr.Recording#enable("io.rafestore.Write")} and so on.
 */
final class JfrEvents {
  private JfrEvents() {}

  /** A begun operation event; only when {@link Observer#jfrActive()}. */
  static Event operation(boolean write) {
    Event e = write ? new Write() : new Read();
    e.begin();
    return e;
  }

  @Name("io.rafestore.Write")
  @Label("RafeStore Write")
  @Description("A write of one value: writeDo, readM, writeDf and writeM")
  @Category("RafeStore")
  @StackTrace(false)
  static final class Write extends Event {
    @Label("Key")
    String key;

    @Label("Version")
    String version;

    @Label("Bytes")
    @DataAmount
    long bytes;

    @Label("Data Clouds")
    @Description("The data clouds the value was sent to, comma-separated")
    String clouds;

    @Label("writeDf Used")
    boolean writeDfUsed;

    @Label("Layout")
    @Description(
        "With Layout.AUTO, the layout chosen and why (kind, k, clouds, predicted time and dollars,"
            + " the runner-up); empty for a fixed layout")
    String layout;

    @Label("Failure")
    @Description("Why the write failed; empty if it succeeded")
    String failure;
  }

  @Name("io.rafestore.Read")
  @Label("RafeStore Read")
  @Description("A read of one value: readM and the data fetch")
  @Category("RafeStore")
  @StackTrace(false)
  static final class Read extends Event {
    @Label("Key")
    String key;

    @Label("Version")
    String version;

    @Label("Bytes")
    @DataAmount
    long bytes;

    @Label("Served By")
    @Description("The cloud whose bytes were returned")
    String cloud;

    @Label("Failure")
    @Description("Why the read failed; empty if it succeeded")
    String failure;
  }

  @Name("io.rafestore.Operation")
  @Label("RafeStore Operation")
  @Description(
      "One call of the client's API, however it ended: write, read, ranged or stream read,"
          + " history, delete, collect, verify, repair, listing, probe")
  @Category("RafeStore")
  @StackTrace(false)
  static final class Operation extends Event {
    @Label("Operation")
    String operation;

    @Label("Key")
    @Description("The key; empty for operations on no one key")
    String key;

    @Label("Bytes")
    @DataAmount
    long bytes;

    @Label("Outcome")
    @Description("OK, NOT_FOUND, INTEGRITY, UNAVAILABLE, TIMEOUT, CANCELLED or FAILED")
    String outcome;

    @Label("Failure")
    @Description("Why the operation failed; empty if it succeeded")
    String failure;
  }

  @Name("io.rafestore.Phase")
  @Label("RafeStore Phase")
  @Description("One phase of an operation (writeDo, readM, writeDf, writeM, dataFetch)")
  @Category("RafeStore")
  @StackTrace(false)
  static final class Phase extends Event {
    @Label("Key")
    String key;

    @Label("Operation")
    String operation;

    @Label("Phase")
    String phase;
  }

  @Name("io.rafestore.CloudFault")
  @Label("RafeStore Cloud Fault")
  @Description("A cloud failed or misbehaved during an operation")
  @Category("RafeStore")
  @StackTrace(false)
  static final class Fault extends Event {
    @Label("Key")
    String key;

    @Label("Cloud")
    String cloud;

    @Label("Kind")
    String kind;

    @Label("Detail")
    String detail;
  }

  @Name("io.rafestore.CloudRequest")
  @Label("RafeStore Cloud Request")
  @Description("One request to one cloud, as it ended")
  @Category("RafeStore")
  @StackTrace(false)
  static final class Request extends Event {
    @Label("Cloud")
    String cloud;

    @Label("Kind")
    String kind;

    @Label("Bytes")
    @DataAmount
    long bytes;

    @Label("Outcome")
    String outcome;

    @Label("Duration on the Client's Scheduler")
    @jdk.jfr.Timespan
    long schedulerNanos;
  }
}
