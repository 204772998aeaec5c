import os

# shard_map tests need 2 host devices; the flag must be set before jax starts.
flag = "--xla_force_host_platform_device_count=2"
if flag not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + flag).strip()
