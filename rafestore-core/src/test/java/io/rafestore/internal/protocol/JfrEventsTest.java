package io.rafestore.internal.protocol;

import static io.rafestore.internal.protocol.ProtocolTest.TABLE1;
import static io.rafestore.internal.protocol.ProtocolTest.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.ChildJvm;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.StoredValue;
import io.rafestore.WriteReceipt;
import io.rafestore.internal.protocol.TestCloud.Behaviour;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JFR events a client commits: recorded with {@link Recording}, read back from the file with
 * {@link RecordingFile}, as an operator would with {@code jfr print --events io.rafestore.Write}.
 */
class JfrEventsTest {

  private static List<RecordedEvent> named(List<RecordedEvent> all, String name) {
    return all.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
  }

  @Test
  void writesReadsPhasesFaultsAndRequestsAreRecorded(@TempDir Path dir) throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    h.clouds.get(0).behave(Behaviour.CORRUPT);
    List<RecordedEvent> events;
    WriteReceipt w;
    StoredValue v;
    try (Recording recording = new Recording()) {
      for (String name :
          List.of(
              "io.rafestore.Write",
              "io.rafestore.Read",
              "io.rafestore.Phase",
              "io.rafestore.CloudFault",
              "io.rafestore.CloudRequest")) {
        recording.enable(name).withoutThreshold();
      }
      recording.start();
      try (RafeStore store = h.client(ProtocolMode.PAPER)) {
        w = h.run(store.write("feed", utf8("twelve bytes")));
        v = h.run(store.read("feed"));
      }
      recording.stop();
      Path file = dir.resolve("rafestore.jfr");
      recording.dump(file);
      assertThat(Files.size(file)).isPositive();
      events = RecordingFile.readAllEvents(file);
    }

    assertThat(named(events, "io.rafestore.Write"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getString("key")).isEqualTo("feed");
              assertThat(e.getString("version")).isEqualTo(w.version().toString());
              assertThat(e.getLong("bytes")).isEqualTo(12);
              assertThat(e.getString("clouds"))
                  .isEqualTo(String.join(",", w.dataCloudsContacted()));
              assertThat(e.getString("failure")).isEmpty();
            });
    assertThat(named(events, "io.rafestore.Read"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getString("key")).isEqualTo("feed");
              assertThat(e.getString("version")).isEqualTo(v.version().toString());
              assertThat(e.getString("cloud")).isEqualTo(v.servedBy());
              assertThat(e.getLong("bytes")).isEqualTo(12);
            });
    List<RecordedEvent> phases = named(events, "io.rafestore.Phase");
    assertThat(phases)
        .filteredOn(e -> e.getString("operation").equals("WRITE"))
        .extracting(e -> e.getString("phase"))
        .contains("writeDo", "readM", "writeM");
    assertThat(phases)
        .filteredOn(e -> e.getString("operation").equals("READ"))
        .extracting(e -> e.getString("phase"))
        .containsExactlyInAnyOrder("readM", "dataFetch");
    assertThat(phases).allSatisfy(e -> assertThat(e.getString("key")).isEqualTo("feed"));
    // p0 corrupts what it returns: the read names it.
    assertThat(named(events, "io.rafestore.CloudFault"))
        .isNotEmpty()
        .allSatisfy(e -> assertThat(e.getString("cloud")).isEqualTo("p0"))
        .anySatisfy(e -> assertThat(e.getString("kind")).isEqualTo("CORRUPT_DATA"));
    List<RecordedEvent> requests = named(events, "io.rafestore.CloudRequest");
    assertThat(requests).extracting(e -> e.getString("cloud")).contains("p0", "p1", "p2", "p3");
    assertThat(requests)
        .filteredOn(e -> e.getString("kind").equals("PUT"))
        .anySatisfy(e -> assertThat(e.getLong("bytes")).isEqualTo(12));
  }

  @Test
  void everyOperationIsRecordedWithItsOutcome(@TempDir Path dir) throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    List<RecordedEvent> events;
    try (Recording recording = new Recording()) {
      recording.enable("io.rafestore.Operation").withoutThreshold();
      recording.enable("io.rafestore.Phase").withoutThreshold();
      recording.start();
      try (RafeStore store = h.client(ProtocolMode.PAPER)) {
        WriteReceipt w = h.run(store.write("feed", utf8("twelve bytes")));
        h.run(store.read("feed", w.version(), 7, 5));
        h.run(store.verify("feed"));
        h.run(store.keys());
        h.run(store.delete("feed"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> h.run(store.read("feed")))
            .hasCauseInstanceOf(io.rafestore.KeyNotFoundException.class);
      }
      recording.stop();
      Path file = dir.resolve("operations.jfr");
      recording.dump(file);
      events = RecordingFile.readAllEvents(file);
    }

    List<RecordedEvent> ops = named(events, "io.rafestore.Operation");
    assertThat(ops)
        .extracting(e -> e.getString("operation") + " " + e.getString("outcome"))
        .containsExactly(
            "WRITE OK", "RANGED_READ OK", "VERIFY OK", "KEYS OK", "DELETE OK", "READ NOT_FOUND");
    assertThat(ops.get(0).getLong("bytes")).isEqualTo(12);
    assertThat(ops.get(1).getLong("bytes")).isEqualTo(5);
    assertThat(ops.get(3).getString("key")).isEmpty();
    assertThat(ops.get(5).getString("failure")).contains("KeyNotFoundException");
    assertThat(ops.subList(0, 5)).allSatisfy(e -> assertThat(e.getString("failure")).isEmpty());
    List<RecordedEvent> phases = named(events, "io.rafestore.Phase");
    assertThat(phases)
        .filteredOn(e -> e.getString("operation").equals("RANGED_READ"))
        .extracting(e -> e.getString("phase"))
        .containsExactly("readM", "dataFetch");
    assertThat(phases)
        .filteredOn(e -> e.getString("operation").equals("DELETE"))
        .extracting(e -> e.getString("phase"))
        .containsExactly("readM", "writeM");
  }

  /**
   * With no recording in the JVM, no event object is created: the first one registers every event
   * class with JFR (about a hundred classes and generated handlers on JDK 17), a cost a short
   * command should not pay for events nobody records. Run in a child JVM, whose class-load log
   * tells.
   */
  @Test
  void anIdleJvmCreatesNoEventObject(@TempDir Path dir) throws Exception {
    ChildJvm.Result child =
        ChildJvm.run(
            JfrIdleMain.class,
            List.of("-Xlog:disable", "-Xlog:class+load=info:stdout"),
            dir.resolve("child.log"),
            Duration.ofSeconds(120));
    assertThat(child.finished()).as("child finished").isTrue();
    String out = child.output();
    assertThat(child.exitValue()).as(out).isZero();
    assertThat(out).contains("read=twelve bytes");
    // The control: the run did load the class that holds the events (the observer's).
    assertThat(out).contains("io.rafestore.internal.observe.OpTrace ");
    assertThat(out).doesNotContain("io.rafestore.internal.observe.JfrEvents$");
    assertThat(out).doesNotContain("jdk.jfr.internal.handlers");
  }
}
