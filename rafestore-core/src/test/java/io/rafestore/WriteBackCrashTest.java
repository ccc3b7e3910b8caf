package io.rafestore;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a JVM doing write-back writes at random points, many times, on four directory clouds whose
 * state survives the kill, restarting it on the same journal each time; then checks that every
 * acknowledged write appears exactly once in its key's history with its exact bytes, and that no
 * value appears twice at all.
 *
 * <p>Kill points: at random times (before or after a journal fsync, during uploads or writeM), by
 * {@link Process#destroyForcibly()} (SIGKILL), and at named points where the child halts itself as
 * kill -9 would: after an intent's fsync before its acknowledgement, after a commit record's fsync
 * before any cloud got the log, after the commit records of a round of several writes (group
 * commit) before any cloud got its log (forced in runs 1 to 3, so that the grouped redo runs every
 * time), after the commit records of a bulk round (its values packed first, the pack on the clouds)
 * before any cloud got its log (forced in runs 4 and 5, the child writing small values behind held
 * metadata puts so that a backlog forms), after writeM before the done mark, and after the n-th
 * data or metadata put landed (a writeM that reached only some clouds).
 */
class WriteBackCrashTest {
  @TempDir Path root;

  private static final String[] NAMED = {
    "-Dio.rafestore.writeback.crashAt=intent-durable:",
    "-Dio.rafestore.writeback.crashAt=commit-durable:",
    "-Dio.rafestore.writeback.crashAt=on-clouds:",
    "-Dio.rafestore.writeback.crashAt=group-commit-durable:",
    "-Dcrash.dataPut=",
    "-Dcrash.metadataPut=",
  };

  @Test
  void everyAcknowledgedWriteIsInItsHistoryExactlyOnceAfterKillsAtRandomPoints() throws Exception {
    KeyPair keys = SigningKeys.generate();
    Files.write(
        root.resolve("keys"),
        List.of(
            SigningKeys.encodePublic(keys.getPublic()),
            SigningKeys.encodePrivate(keys.getPrivate())));
    // -Drafestore.crash.seed replays a run's choice of kill points (the kills' timing still
    // varies).
    long seed = Long.getLong("rafestore.crash.seed", System.nanoTime());
    Random random = new Random(seed);
    Map<String, String> acked = new HashMap<>(); // sha -> key
    List<String> how = new ArrayList<>();
    // A build's budget: 8 to 40 runs in about 35 s; a soak raises both (scripts/soak.sh).
    long end =
        System.nanoTime() + TimeUnit.SECONDS.toNanos(Long.getLong("rafestore.crash.seconds", 35));
    int maxRuns = Integer.getInteger("rafestore.crash.runs", 40);
    int runs = 0;
    int recoveredIntents = 0;
    int recoveredCommits = 0;
    int recoveredGrouped = 0;
    int recoveredBulk = 0;
    while (runs < maxRuns && (runs < 8 || System.nanoTime() < end)) {
      String option = null;
      if (runs >= 1 && runs <= 3) {
        // A round of several journaled writes, its commit records durable, no cloud has its log:
        // the next run redoes them together (the grouped path, every time the test runs).
        option = "-Dio.rafestore.writeback.crashAt=group-commit-durable:1";
      } else if (runs == 4 || runs == 5) {
        // A backlog behind slow metadata puts: a bulk round, its pack on the clouds and its commit
        // records durable, no cloud has its log; the next run redoes it from the records.
        option = "-Dcrash.backlog=true -Dio.rafestore.writeback.crashAt=bulk-commit-durable:1";
      } else if (random.nextInt(3) > 0) {
        String named = NAMED[random.nextInt(NAMED.length)];
        option = named + (1 + random.nextInt(named.contains("Put") ? 12 : 4));
      }
      // The bulk runs halt themselves at their point; the kill is the backstop.
      long killAfterMillis = runs == 4 || runs == 5 ? 10_000 : 50 + random.nextInt(700);
      how.add(option == null ? "kill after " + killAfterMillis + " ms" : option);
      Child c = start(runs, "work", option);
      c.ready.await(30, TimeUnit.SECONDS);
      if (!c.process.waitFor(killAfterMillis, TimeUnit.MILLISECONDS)) {
        c.process.destroyForcibly(); // SIGKILL: nothing of the child runs after it
      }
      c.process.waitFor(30, TimeUnit.SECONDS);
      c.reader.join(10_000);
      for (String line : c.lines) {
        String[] f = line.split(" ");
        if (f.length == 4 && f[0].equals("ACK") && f[3].equals("END")) {
          acked.put(f[2], f[1]);
        }
        if (f.length == 6 && f[0].equals("RECOVERED") && f[5].equals("END")) {
          recoveredIntents += Integer.parseInt(f[1]);
          recoveredCommits += Integer.parseInt(f[2]);
          recoveredGrouped += Integer.parseInt(f[3]);
          recoveredBulk += Integer.parseInt(f[4]);
        }
        assertThat(line).as("run %d (%s) output", runs, how.get(runs)).doesNotStartWith("ERROR");
      }
      runs++;
    }
    Child v = start(runs, "verify", null);
    assertThat(v.process.waitFor(120, TimeUnit.SECONDS)).isTrue();
    v.reader.join(10_000);
    assertThat(v.process.exitValue()).as("verify run output: %s", v.lines).isZero();
    Map<String, Integer> seen = new HashMap<>();
    Map<String, String> keyOf = new HashMap<>();
    for (String line : v.lines) {
      String[] f = line.split(" ");
      if (f.length == 5 && f[0].equals("VERSION") && f[4].equals("END")) {
        seen.merge(f[3], 1, Integer::sum);
        keyOf.put(f[3], f[1]);
      }
    }
    String context = "seed " + seed + ", " + runs + " runs: " + how;
    // Evidence that the kills hit every replay path (new writes and redone ones), for the log.
    System.out.printf(
        "WriteBackCrashTest: %d runs, %d acknowledged, %d versions, %d intents replayed (%d with a"
            + " commit record, redone; %d of them from rounds of several writes, %d from bulk"
            + " rounds), seed %d%n",
        runs,
        acked.size(),
        seen.size(),
        recoveredIntents,
        recoveredCommits,
        recoveredGrouped,
        recoveredBulk,
        seed);
    assertThat(recoveredGrouped)
        .as("commit records of rounds that carried several writes, replayed (%s)", context)
        .isPositive();
    assertThat(recoveredBulk)
        .as("commit records of bulk rounds (values packed first), replayed (%s)", context)
        .isPositive();
    assertThat(acked).as("acknowledged writes, " + context).hasSizeGreaterThan(runs);
    for (Map.Entry<String, String> a : acked.entrySet()) {
      assertThat(seen.getOrDefault(a.getKey(), 0))
          .as("acknowledged write %s of %s, %s", a.getKey(), a.getValue(), context)
          .isEqualTo(1);
      assertThat(keyOf.get(a.getKey())).isEqualTo(a.getValue());
    }
    for (Map.Entry<String, Integer> s : seen.entrySet()) {
      assertThat(s.getValue()).as("value %s appears once, %s", s.getKey(), context).isEqualTo(1);
    }
  }

  /** A child JVM and the lines it printed. */
  static final class Child {
    Process process;
    Thread reader;
    final List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());
    final CountDownLatch ready = new CountDownLatch(1);
  }

  private Child start(int run, String mode, String option) throws Exception {
    List<String> cp = new ArrayList<>();
    cp.add(
        Path.of(
                WriteBackCrashMain.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI())
            .toString());
    String classPath = System.getProperty("java.class.path");
    if (classPath != null && !classPath.isEmpty()) {
      cp.add(classPath);
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-Xshare:auto");
    if (option != null) {
      command.addAll(List.of(option.split(" ")));
    }
    command.add("-cp");
    command.add(String.join(File.pathSeparator, cp));
    command.add(WriteBackCrashMain.class.getName());
    command.add(root.toString());
    command.add(mode);
    command.add(Integer.toString(run));
    Child c = new Child();
    c.process = new ProcessBuilder(command).redirectErrorStream(true).start();
    c.reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(c.process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  if (line.equals("READY")) {
                    c.ready.countDown();
                  }
                  c.lines.add(line);
                }
              } catch (java.io.IOException e) {
                // The child was killed: its output ends here.
              }
              c.ready.countDown();
            });
    c.reader.setDaemon(true);
    c.reader.start();
    return c;
  }
}
