defmodule CodexClientTest do
  # Against the real `codex app-server` (CODEX_BIN) and the project's local mock model.
  use ExUnit.Case, async: false

  alias CodexClient.{JSON, TestEnv}

  @wait 60_000

  setup context do
    opts = TestEnv.opts(context.test |> Atom.to_string() |> String.replace(~r/\W+/, "_"))
    {:ok, opts: opts, work: opts[:cwd]}
  end

  # Every {:codex_event, ...} until turn/completed, in arrival order; answers approvals with the
  # helper `answer` (:approve, :approve_for_session, :decline, :cancel).
  defp collect_turn(client, answer \\ nil, acc \\ []) do
    receive do
      {:codex_event, "turn/completed", params} = ev ->
        {Enum.reverse([ev | acc]), JSON.decode!(params)["turn"]["status"]}

      {:codex_event, _, _} = ev ->
        collect_turn(client, answer, [ev | acc])

      {:codex_request, req, method, params} ->
        assert answer != nil, "unexpected server request #{method}"
        # The helpers work from any process (they only queue a line for the server).
        :ok = Task.async(fn -> apply(CodexClient, answer, [client, req]) end) |> Task.await()
        # Answered once: a second answer is refused.
        assert {:error, {_status, _msg}} = CodexClient.decline(client, req)

        collect_turn(client, answer, [{:codex_request, method, params} | acc])
    after
      @wait -> flunk("turn did not complete; events so far: #{inspect(Enum.reverse(acc))}")
    end
  end

  defp deltas(events) do
    for {:codex_event, "item/agentMessage/delta", p} <- events, do: JSON.decode!(p)["delta"]
  end

  defp os_pid_alive?(pid) do
    case File.read("/proc/#{pid}/stat") do
      {:ok, stat} -> not String.contains?(stat, ") Z ")
      {:error, _} -> false
    end
  end

  defp wait_until(fun, ms) do
    cond do
      fun.() -> true
      ms <= 0 -> false
      true -> Process.sleep(50) && wait_until(fun, ms - 50)
    end
  end

  test "a streamed turn's deltas arrive as messages, in order", %{opts: opts} do
    {:ok, c} = CodexClient.start_link(opts)
    {:ok, thread} = CodexClient.thread_start(c)
    assert is_binary(thread)
    text = "Hello from Elixir: streamed piece by piece, through a NIF, as messages. 0123456789"
    {:ok, turn} = CodexClient.turn_start(c, thread, "MOCK_TEXT: " <> text)
    assert is_binary(turn)

    {events, status} = collect_turn(c)
    assert status == "completed"
    pieces = deltas(events)
    assert length(pieces) > 3, "expected several deltas, got #{inspect(pieces)}"
    assert Enum.join(pieces) == text

    methods = Enum.map(events, fn {:codex_event, m, _} -> m end)
    first_delta = Enum.find_index(methods, &(&1 == "item/agentMessage/delta"))
    assert Enum.find_index(methods, &(&1 == "turn/started")) < first_delta
    assert List.last(methods) == "turn/completed"
    :ok = CodexClient.stop(c)
  end

  test "an approval arrives as a message; accepted -> the command ran", %{opts: opts, work: work} do
    {:ok, c} = CodexClient.start_link(opts)
    {:ok, thread} = CodexClient.thread_start(c)
    file = Path.join(work, "accepted.txt")
    {:ok, _} = CodexClient.turn_start(c, thread, "MOCK_EXEC: echo approved-command-ran > #{file}")

    {events, status} = collect_turn(c, :approve)
    assert status == "completed"

    assert [{:codex_request, "item/commandExecution/requestApproval", params}] =
             for({:codex_request, _, _} = r <- events, do: r)

    assert JSON.decode!(params)["command"] =~ "approved-command-ran"
    assert File.read!(file) == "approved-command-ran\n"
    :ok = CodexClient.stop(c)
  end

  test "an approval declined -> the command did not run", %{opts: opts, work: work} do
    {:ok, c} = CodexClient.start_link(opts)
    {:ok, thread} = CodexClient.thread_start(c)
    file = Path.join(work, "declined.txt")
    {:ok, _} = CodexClient.turn_start(c, thread, "MOCK_EXEC: echo declined-command-ran > #{file}")

    {events, _status} = collect_turn(c, :decline)

    assert [{:codex_request, "item/commandExecution/requestApproval", _}] =
             for({:codex_request, _, _} = r <- events, do: r)

    refute File.exists?(file)
    :ok = CodexClient.stop(c)
  end

  test "approve_with_execpolicy_amendment runs the command and the rule spares the next approval",
       %{opts: opts, work: work} do
    {:ok, c} = CodexClient.start_link(opts)
    {:ok, thread} = CodexClient.thread_start(c)
    first = Path.join(work, "amended-1.txt")
    {:ok, _} = CodexClient.turn_start(c, thread, "MOCK_EXEC: touch #{first}")

    receive do
      {:codex_request, req, "item/commandExecution/requestApproval", _params} ->
        # Not for another kind of request, nor twice.
        :ok = CodexClient.approve_with_execpolicy_amendment(c, req, ["touch"])
        assert {:error, {_, _}} = CodexClient.approve_with_execpolicy_amendment(c, req, ["touch"])
    after
      @wait -> flunk("no approval request")
    end

    {_events, status} = collect_turn(c)
    assert status == "completed"
    assert File.exists?(first)

    # The rule now allows `touch …`: the same kind of command runs without asking.
    second = Path.join(work, "amended-2.txt")
    {:ok, _} = CodexClient.turn_start(c, thread, "MOCK_EXEC: touch #{second}")
    {events, status} = collect_turn(c)
    assert status == "completed"
    assert for({:codex_request, _, _} = r <- events, do: r) == []
    assert File.exists?(second)
    :ok = CodexClient.stop(c)
  end

  test "the :transport option: exec runs a turn without approvals; stdio asks; a bad spec is refused",
       %{opts: opts, work: work} do
    exec_opts = opts ++ [transport: "exec", args: ["--skip-git-repo-check"]]
    {:ok, c} = CodexClient.start_link(exec_opts)
    {:ok, thread} = CodexClient.thread_start(c)
    file = Path.join(work, "exec.txt")
    {:ok, _} = CodexClient.turn_start(c, thread, "MOCK_EXEC: touch #{file}")
    # codex exec runs with approval policy `never`: no request reaches the client and the
    # command is rejected without asking.
    {events, status} = collect_turn(c)
    assert status == "completed"
    assert for({:codex_request, _, _} = r <- events, do: r) == []
    refute File.exists?(file)
    :ok = CodexClient.stop(c)

    {:ok, c} = CodexClient.start_link(opts ++ [transport: "stdio"])
    {:ok, thread} = CodexClient.thread_start(c)
    {:ok, _} = CodexClient.turn_start(c, thread, "MOCK_EXEC: touch #{file}")
    {events, "completed"} = collect_turn(c, :approve)
    assert [{:codex_request, "item/commandExecution/requestApproval", _}] =
             for({:codex_request, _, _} = r <- events, do: r)
    assert File.exists?(file)
    :ok = CodexClient.stop(c)

    Process.flag(:trap_exit, true)
    assert {:error, {:invalid_argument, msg}} = CodexClient.start_link(opts ++ [transport: "carrier-pigeon"])
    assert msg =~ "carrier-pigeon"
  end

  test "approve_for_session runs the command; cancel interrupts the turn", %{opts: opts, work: work} do
    {:ok, c} = CodexClient.start_link(opts)
    {:ok, thread} = CodexClient.thread_start(c)
    file = Path.join(work, "session.txt")
    {:ok, _} = CodexClient.turn_start(c, thread, "MOCK_EXEC: echo for-session > #{file}")
    {_events, status} = collect_turn(c, :approve_for_session)
    assert status == "completed"
    assert File.read!(file) == "for-session\n"

    {:ok, thread2} = CodexClient.thread_start(c)
    cancelled = Path.join(work, "cancelled.txt")
    {:ok, _} = CodexClient.turn_start(c, thread2, "MOCK_EXEC: echo cancelled > #{cancelled}")
    {events, status} = collect_turn(c, :cancel)
    assert [{:codex_request, "item/commandExecution/requestApproval", _}] =
             for({:codex_request, _, _} = r <- events, do: r)
    assert status == "interrupted"
    refute File.exists?(cancelled)
    :ok = CodexClient.stop(c)
  end

  test "an approval nobody answers is declined once its message is garbage collected",
       %{opts: opts, work: work} do
    test = self()
    # The owner is a relay that forwards events and drops server requests on the floor.
    relay = spawn_link(fn -> relay(test) end)
    {:ok, c} = CodexClient.start_link(Keyword.put(opts, :owner, relay))
    {:ok, thread} = CodexClient.thread_start(c)
    file = Path.join(work, "unanswered.txt")

    {:ok, _} =
      CodexClient.turn_start(c, thread, "MOCK_EXEC: echo unanswered-command-ran > #{file}")

    assert_receive {:dropped, "item/commandExecution/requestApproval"}, @wait
    {_events, _status} = collect_turn(c)
    refute File.exists?(file)
    :ok = CodexClient.stop(c)
  end

  defp relay(test) do
    receive do
      {:codex_request, _request, method, _params} -> send(test, {:dropped, method})
      other -> send(test, other)
    end

    # The request resource is unreachable now: GC runs its destructor (codex_request_free),
    # which answers fail-closed (declined).
    :erlang.garbage_collect()
    relay(test)
  end

  test "interrupt/3 stops a running turn", %{opts: opts} do
    {:ok, c} = CodexClient.start_link(opts)
    {:ok, thread} = CodexClient.thread_start(c)
    {:ok, turn} = CodexClient.turn_start(c, thread, "MOCK_SLOW: 50 200")
    assert_receive {:codex_event, "item/agentMessage/delta", _}, @wait
    :ok = CodexClient.interrupt(c, thread, turn)
    {events, status} = collect_turn(c)
    assert status == "interrupted"
    assert length(deltas(events)) < 49
    :ok = CodexClient.stop(c)
  end

  test "stop/1 ends the Codex process", %{opts: opts} do
    {:ok, c} = CodexClient.start_link(opts)
    {:ok, os_pid} = CodexClient.server_pid(c)
    assert os_pid_alive?(os_pid)
    :ok = CodexClient.stop(c)
    refute Process.alive?(c)
    assert wait_until(fn -> not os_pid_alive?(os_pid) end, 5_000), "codex #{os_pid} still running"
    assert wait_until(fn -> CodexClient.live_clients() == 0 end, 5_000), "client not freed"
  end

  test "killing the owning process frees the client (no leaked Codex process)", %{opts: opts} do
    test = self()

    assert wait_until(fn -> CodexClient.live_clients() == 0 end, 5_000),
           "clients of earlier tests not freed"

    owner =
      spawn(fn ->
        {:ok, c} = CodexClient.start_link(opts)
        {:ok, thread} = CodexClient.thread_start(c)
        {:ok, _} = CodexClient.turn_start(c, thread, "MOCK_SLOW: 100 200")
        send(test, {:started, c, CodexClient.server_pid(c)})
        Process.sleep(:infinity)
      end)

    assert_receive {:started, pump, {:ok, os_pid}}, @wait
    assert os_pid_alive?(os_pid)
    ref = Process.monitor(pump)
    Process.exit(owner, :kill)
    assert_receive {:DOWN, ^ref, :process, ^pump, :killed}, 5_000

    assert wait_until(fn -> not os_pid_alive?(os_pid) end, 5_000),
           "codex #{os_pid} still running after its owner died"

    # The resource destructor ran and codex_client_free() returned (on its helper thread).
    assert wait_until(fn -> CodexClient.live_clients() == 0 end, 5_000), "client not freed"
  end

  test "the server dying arrives as a message; later calls fail cleanly", %{opts: opts} do
    {:ok, c} = CodexClient.start_link(opts)
    {:ok, os_pid} = CodexClient.server_pid(c)
    System.cmd("kill", ["-9", to_string(os_pid)])
    assert_receive {:codex_disconnected, reason, _stderr_tail}, @wait
    assert is_binary(reason)
    assert {:error, _} = CodexClient.thread_start(c)
    assert Process.alive?(c)
    :ok = CodexClient.stop(c)
  end

  test "no NIF call holds a normal scheduler (long_schedule monitor)", %{opts: opts, work: work} do
    {:ok, c} = CodexClient.start_link(opts)
    {:ok, thread} = CodexClient.thread_start(c)
    previous = :erlang.system_monitor(self(), [{:long_schedule, 50}])

    try do
      {:ok, _} = CodexClient.turn_start(c, thread, "MOCK_TEXT: " <> String.duplicate("abc ", 200))
      {_, "completed"} = collect_turn(c)
      file = Path.join(work, "sched.txt")
      {:ok, _} = CodexClient.turn_start(c, thread, "MOCK_EXEC: echo x > #{file}")
      {_, "completed"} = collect_turn(c, :approve)
    after
      case previous do
        :undefined -> :erlang.system_monitor(:undefined)
        {pid, o} -> :erlang.system_monitor(pid, o)
      end
    end

    long = for {:monitor, p, :long_schedule, info} <- flush(), p == c, do: info
    assert long == [], "the pump was not scheduled out for >50 ms: #{inspect(long)}"
    :ok = CodexClient.stop(c)
  end

  defp flush(acc \\ []) do
    receive do
      m -> flush([m | acc])
    after
      0 -> Enum.reverse(acc)
    end
  end

  test "an option the library refuses is an {:error, {:invalid_argument, message}}", %{opts: opts} do
    # The NIF builds the opaque codex_options_t with setters; each checks its value at once.
    base = %{codex_bin: to_string(opts[:codex_bin]), codex_home: to_string(opts[:codex_home])}
    live = CodexClient.live_clients()

    assert {:error, {:invalid_argument, msg}} =
             CodexClient.Nif.open(Map.put(base, :env, ["NO_EQUALS_SIGN"]), self())

    assert msg =~ "NO_EQUALS_SIGN" and msg =~ "NAME=value"

    assert {:error, {:invalid_argument, msg}} =
             CodexClient.Nif.open(Map.put(base, :config, ["=1"]), self())

    assert msg =~ "config_overrides" and msg =~ "NAME=value"

    assert {:error, {:invalid_argument, msg}} =
             CodexClient.Nif.open(Map.put(base, :timeout_ms, 1_000_000_000_000), self())

    assert msg =~ "default_timeout" and msg =~ "31536000"
    # None of these opened a client (a client stopped by an earlier test may still be being
    # freed on its helper thread meanwhile: the count can only go down).
    assert CodexClient.live_clients() <= live
  end

  test "JSON round trip" do
    v = %{"a" => [1, 2.5, true, nil, "x\"y\n\u00e9\u{1F600}"], "b" => %{}}
    assert JSON.decode!(JSON.encode!(v)) == v

    assert JSON.decode!(~s({"s":"\\ud83d\\ude00 \\u00e9","n":-1e3})) == %{
             "s" => "😀 é",
             "n" => -1.0e3
           }
  end
end
