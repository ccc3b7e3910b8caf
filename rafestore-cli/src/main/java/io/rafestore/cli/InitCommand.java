package io.rafestore.cli;

import io.rafestore.config.CloudConfig;
import io.rafestore.config.StoreConfig;
import io.rafestore.drivers.gcs.GcsCloud;
import io.rafestore.drivers.s3.S3Cloud;
import io.rafestore.spi.CloudDriver;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code rafestore init}: creates the buckets the configuration names where they do not exist yet,
 * so that a new set of clouds is ready for {@code put}. Writes no object.
 */
@Command(
    name = "init",
    description = {
      "Creates each s3 and gcs cloud's bucket if it does not exist yet. Azure containers, Redis"
          + " prefixes and directories need no set-up (they are made on first write)."
    })
final class InitCommand implements Callable<Integer> {
  /** Bound on each bucket creation, so that one unreachable cloud does not hang the command. */
  private static final long TIMEOUT_SECONDS = 60;

  @ParentCommand RafeStoreCommand root;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    StoreConfig config = root.loadConfig();
    List<Object> results = new ArrayList<>();
    int failures = 0;
    for (CloudConfig c : config.clouds()) {
      String outcome;
      try (CloudDriver driver = config.createDriver(c)) {
        CompletableFuture<Void> creation = createBucket(driver);
        if (creation == null) {
          outcome = "nothing to create";
        } else {
          try {
            creation.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            outcome = "bucket " + c.spec().bucket() + " ready";
          } catch (ExecutionException e) {
            failures++;
            outcome = "FAILED: " + e.getCause().getMessage();
          } catch (TimeoutException e) {
            creation.cancel(true);
            failures++;
            outcome = "FAILED: no answer in " + TIMEOUT_SECONDS + " s";
          }
        }
      }
      Map<String, Object> o = Json.object();
      o.put("id", c.id());
      o.put("type", c.spec().type());
      o.put("result", outcome);
      results.add(o);
      if (!root.json) {
        spec.commandLine().getOut().printf("%s (%s): %s%n", c.id(), c.spec().type(), outcome);
      }
    }
    if (root.json) {
      Map<String, Object> o = Json.object();
      o.put("clouds", results);
      o.put("ok", failures == 0);
      spec.commandLine().getOut().println(Json.write(o));
    }
    spec.commandLine().getOut().flush();
    return failures == 0 ? ExitCodes.OK : ExitCodes.FAILED;
  }

  /**
   * Creates the bucket of an S3 or GCS driver if it is missing; null for drivers that need none
   * (Azure creates its container on the first write; Redis and directories need nothing).
   */
  static CompletableFuture<Void> createBucket(CloudDriver driver) {
    if (driver instanceof S3Cloud s3) {
      return s3.createBucketIfMissing();
    }
    if (driver instanceof GcsCloud gcs) {
      return gcs.createBucketIfMissing();
    }
    return null;
  }
}
