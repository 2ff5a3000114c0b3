# SPDX-License-Identifier: LGPL-2.1
# A ClickHouse server of our own for make check-fleet and make bench:
# Debian's clickhouse-server on 127.0.0.1, free ports, its configuration,
# data and logs under a directory of ours, the cluster kmtrace_fleet of
# docs/fleet.md. Sourced (sh or bash); sets FLEET_PORT and FLEET_PID.

# fleet_free_port: a TCP port nothing on this machine listens on.
fleet_free_port() {
	local p
	for _ in $(seq 50); do
		p=$(shuf -i 20000-39999 -n 1)
		ss -Htln "sport = :$p" 2>/dev/null | grep -q . || { echo $p; return 0; }
	done
	return 1
}

# fleet_start DIR: a server whose files are all under DIR; 0 once it answers.
fleet_start() {
	local d=$1 http
	FLEET_PORT=$(fleet_free_port) && http=$(fleet_free_port) || return 1
	mkdir -p "$d/data" "$d/tmp" "$d/log" "$d/user_files" "$d/format_schemas" || return 1
	cat >"$d/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$d/log/server.log</log><errorlog>$d/log/error.log</errorlog></logger>
  <tcp_port>$FLEET_PORT</tcp_port>
  <http_port>$http</http_port>
  <listen_host>127.0.0.1</listen_host>
  <path>$d/data/</path>
  <tmp_path>$d/tmp/</tmp_path>
  <user_files_path>$d/user_files/</user_files_path>
  <format_schema_path>$d/format_schemas/</format_schema_path>
  <users_config>$d/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>5368709120</mark_cache_size>
  <remote_servers>
    <kmtrace_fleet>
      <shard><replica><host>127.0.0.1</host><port>$FLEET_PORT</port></replica></shard>
    </kmtrace_fleet>
  </remote_servers>
</yandex>
XML
	cat >"$d/users.xml" <<'XML'
<?xml version="1.0"?>
<yandex>
  <profiles><default></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
XML
	clickhouse-server --config-file="$d/config.xml" >"$d/log/stdout" 2>&1 &
	FLEET_PID=$!
	for _ in $(seq 150); do
		clickhouse-client --port "$FLEET_PORT" --query 'SELECT 1' >/dev/null 2>&1 && return 0
		kill -0 "$FLEET_PID" 2>/dev/null || break
		sleep 0.2
	done
	echo "fleet: clickhouse-server did not start: $(tail -n 3 "$d/log/stdout" "$d/log/error.log" 2>/dev/null)" >&2
	return 1
}

# fleet_stop: stop the server fleet_start started, and wait for it.
fleet_stop() {
	[ -n "${FLEET_PID:-}" ] || return 0
	kill "$FLEET_PID" 2>/dev/null
	for _ in $(seq 150); do
		kill -0 "$FLEET_PID" 2>/dev/null || break
		sleep 0.2
	done
	kill -KILL "$FLEET_PID" 2>/dev/null
	wait "$FLEET_PID" 2>/dev/null
	FLEET_PID=
}
