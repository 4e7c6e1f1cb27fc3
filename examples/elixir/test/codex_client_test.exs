defmodule CodexClientTest do
  # Against the real `codex app-server` (CODEX_BIN) and the project's local mock model.
  use ExUnit.Case, async: false

  alias CodexClient.{Event, Item, JSON, TestEnv}

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
      @wait ->
        flunk(
          "turn did not complete; events so far: #{inspect(Enum.reverse(acc))}\n" <>
            stderr_report(client)
        )
    end
  end

  # What a failed assertion on a turn's status shows: the turn's error (`turn/completed`
  # params.turn.error), the `error` notifications, the methods seen, and the client's stderr
  # tail. Read it before the client is stopped.
  defp turn_report(client, events) do
    error =
      case List.last(events) do
        {:codex_event, "turn/completed", p} -> JSON.decode!(p)["turn"]["error"]
        _ -> :no_turn_completed
      end

    notices = for {:codex_event, "error", p} <- events, do: p
    methods = Enum.map(events, &elem(&1, 1))

    "the turn did not end as expected\n  turn error: #{inspect(error, limit: :infinity)}" <>
      "\n  error notifications: #{inspect(notices, limit: :infinity)}" <>
      "\n  events: #{inspect(methods, limit: :infinity)}\n" <> stderr_report(client)
  end

  defp stderr_report(client) do
    tail =
      try do
        case CodexClient.stderr_tail(client) do
          {:ok, ""} -> "(empty)"
          {:ok, t} -> t
          other -> inspect(other)
        end
      catch
        :exit, why -> "(client gone: #{inspect(why)})"
      end

    "  client stderr tail: #{tail}"
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
    assert status == "completed", turn_report(c, events)
    pieces = deltas(events)
    assert length(pieces) > 3, "expected several deltas, got #{inspect(pieces)}"
    assert Enum.join(pieces) == text

    methods = Enum.map(events, fn {:codex_event, m, _} -> m end)
    first_delta = Enum.find_index(methods, &(&1 == "item/agentMessage/delta"))
    assert Enum.find_index(methods, &(&1 == "turn/started")) < first_delta
    assert List.last(methods) == "turn/completed"
    :ok = CodexClient.stop(c)
  end

  # events: :typed: every {:codex, struct} until TurnCompleted, in arrival order; approvals
  # (typed request structs) answered with `answer` given the struct itself.
  defp collect_typed(client, answer \\ nil, acc \\ []) do
    receive do
      {:codex, %Event.TurnCompleted{} = ev} ->
        Enum.reverse([ev | acc])

      {:codex, %{request: _} = req} ->
        assert answer != nil, "unexpected server request #{inspect(req)}"
        :ok = apply(CodexClient, answer, [client, req])
        collect_typed(client, answer, [req | acc])

      {:codex, ev} ->
        collect_typed(client, answer, [ev | acc])

      {:codex_event, m, _} ->
        flunk("a raw event (#{m}) reached the owner of a typed client")
    after
      @wait ->
        flunk(
          "turn did not complete; typed events so far: #{inspect(Enum.reverse(acc))}\n" <>
            stderr_report(client)
        )
    end
  end

  defp typed_report(client, events) do
    last = List.last(events)
    notices = for %Event.Error{} = e <- events, do: e

    "the turn did not end as expected\n  turn completed: #{inspect(last, limit: :infinity)}" <>
      "\n  error notifications: #{inspect(notices, limit: :infinity)}\n" <> stderr_report(client)
  end

  # Every request body the local model received (GET /_mock/requests on MOCK_MODEL_PORT).
  defp model_requests do
    port = String.to_integer(System.fetch_env!("MOCK_MODEL_PORT"))
    {:ok, sock} = :gen_tcp.connect(~c"127.0.0.1", port, [:binary, active: false], 5_000)
    :ok = :gen_tcp.send(sock, "GET /_mock/requests HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
    body = read_all(sock, [])
    [_headers, json] = String.split(body, "\r\n\r\n", parts: 2)
    JSON.decode!(json)
  end

  defp read_all(sock, acc) do
    case :gen_tcp.recv(sock, 0, 10_000) do
      {:ok, data} -> read_all(sock, [acc | data])
      {:error, :closed} -> IO.iodata_to_binary(acc)
    end
  end

  test "events: :typed - a real turn matched on structs: deltas, the agent message, the status",
       %{opts: opts} do
    {:ok, c} = CodexClient.start_link(opts ++ [events: :typed])
    {:ok, thread} = CodexClient.thread_start(c)
    text = "Typed events from Elixir: deltas, then the whole message. 0123456789"
    {:ok, turn} = CodexClient.turn_start(c, thread, "MOCK_TEXT: " <> text)

    events = collect_typed(c)

    assert %Event.TurnCompleted{
             status: :completed,
             error: nil,
             turn_id: ^turn,
             thread_id: ^thread
           } = List.last(events),
           typed_report(c, events)

    assert [%Event.TurnStarted{thread_id: ^thread, status: :in_progress}] =
             for(%Event.TurnStarted{turn_id: ^turn} = e <- events, do: e)

    pieces = for %Event.AgentMessageDelta{turn_id: ^turn, delta: d} <- events, do: d
    assert length(pieces) > 3, "expected several deltas, got #{inspect(pieces)}"
    assert Enum.join(pieces) == text

    # The user's message and the agent's, as typed items; the deltas name the agent message.
    assert [%Item.UserMessage{content: [%{"type" => "text", "text" => "MOCK_TEXT: " <> ^text}]}] =
             for(%Event.ItemCompleted{item: %Item.UserMessage{} = i} <- events, do: i)

    assert [%Item.AgentMessage{id: msg_id, text: ^text}] =
             for(%Event.ItemCompleted{item: %Item.AgentMessage{} = i} <- events, do: i)

    assert Enum.all?(
             for(%Event.AgentMessageDelta{item_id: id} <- events, do: id),
             &(&1 == msg_id)
           )

    # The item started before its first delta and completed after its last.
    idx = fn f -> Enum.find_index(events, f) end
    started = idx.(&match?(%Event.ItemStarted{item: %Item.AgentMessage{id: ^msg_id}}, &1))
    completed = idx.(&match?(%Event.ItemCompleted{item: %Item.AgentMessage{id: ^msg_id}}, &1))
    first_delta = idx.(&match?(%Event.AgentMessageDelta{}, &1))

    last_delta =
      length(events) - 1 -
        Enum.find_index(Enum.reverse(events), &match?(%Event.AgentMessageDelta{}, &1))

    assert started < first_delta and last_delta < completed
    # The turn started before its first delta; notifications without a struct of their own
    # (thread/started, sent before the turn) arrive too, with their params decoded.
    assert idx.(&match?(%Event.TurnStarted{}, &1)) < first_delta

    assert [%Event.Notification{params: %{"thread" => %{"id" => ^thread}}}] =
             for(%Event.Notification{method: "thread/started"} = n <- events, do: n)

    :ok = CodexClient.stop(c)
  end

  test "events: :typed - command and file-change approvals arrive as structs and are answered",
       %{opts: opts, work: work} do
    {:ok, c} = CodexClient.start_link(opts ++ [events: :typed])
    {:ok, thread} = CodexClient.thread_start(c)
    file = Path.join(work, "typed-approved.txt")
    {:ok, turn} = CodexClient.turn_start(c, thread, "MOCK_EXEC: echo typed-approval > #{file}")
    events = collect_typed(c, :approve)
    assert %Event.TurnCompleted{status: :completed} = List.last(events), typed_report(c, events)

    assert [%Event.CommandApproval{turn_id: ^turn, thread_id: ^thread, item_id: item_id} = req] =
             for(%Event.CommandApproval{} = r <- events, do: r)

    assert req.command =~ "typed-approval"
    assert req.cwd == work
    assert is_reference(req.request) and req.raw["itemId"] == item_id
    # Answered once (by collect_typed); the struct is refused a second answer like the handle.
    assert {:error, {_, _}} = CodexClient.decline(c, req)

    assert [%Item.CommandExecution{status: :completed, exit_code: 0, command: cmd}] =
             for(
               %Event.ItemCompleted{item: %Item.CommandExecution{id: ^item_id} = i} <- events,
               do: i
             )

    assert cmd =~ "typed-approval"
    assert File.read!(file) == "typed-approval\n"

    # A patch on an "untrusted" thread: a FileChangeApproval, the FileChange item with its change.
    {:ok, thread} = CodexClient.thread_start(c, %{"approvalPolicy" => "untrusted", "cwd" => work})

    {:ok, _} =
      CodexClient.turn_start(c, thread, "MOCK_PATCH: typed-patch.txt patched from Elixir")

    events = collect_typed(c, :approve)
    assert %Event.TurnCompleted{status: :completed} = List.last(events), typed_report(c, events)

    assert [%Event.FileChangeApproval{item_id: patch_id}] =
             for(%Event.FileChangeApproval{} = r <- events, do: r)

    assert [
             %Item.FileChange{
               status: :completed,
               changes: [%{path: path, kind: %{"type" => "add"}}]
             }
           ] =
             for(%Event.ItemCompleted{item: %Item.FileChange{id: ^patch_id} = i} <- events, do: i)

    assert Path.basename(path) == "typed-patch.txt"
    assert File.read!(Path.join(work, "typed-patch.txt")) =~ "patched from Elixir"
    :ok = CodexClient.stop(c)
  end

  test "events: :typed - a failed turn carries its error; decode/1 types a raw message the same",
       %{opts: opts} do
    {:ok, c} = CodexClient.start_link(opts ++ [events: :typed])
    {:ok, thread} = CodexClient.thread_start(c)
    {:ok, turn} = CodexClient.turn_start(c, thread, "MOCK_FAIL")
    events = collect_typed(c)

    assert %Event.TurnCompleted{
             status: :failed,
             turn_id: ^turn,
             error: %CodexClient.TurnError{} = e
           } = List.last(events)

    assert is_binary(e.message) and e.message != ""

    assert [%Event.Error{turn_id: ^turn, will_retry: false, error: %CodexClient.TurnError{}} | _] =
             for(%Event.Error{} = n <- events, do: n)

    :ok = CodexClient.stop(c)

    # The same kind of turn with raw events, decoded by the caller.
    {:ok, c} = CodexClient.start_link(opts)
    {:ok, thread} = CodexClient.thread_start(c)
    {:ok, _} = CodexClient.turn_start(c, thread, "MOCK_FAIL")
    {events, status} = collect_turn(c)
    assert status == "failed", turn_report(c, events)

    assert %Event.TurnCompleted{status: :failed, error: %CodexClient.TurnError{message: m}} =
             Event.decode(List.last(events))

    assert m == e.message
    :ok = CodexClient.stop(c)
    # A bad option value is refused before anything starts.
    assert {:error, {:invalid_argument, msg}} = CodexClient.start_link(opts ++ [events: :json])
    assert msg =~ ":json"
  end

  test "turn_start sends a local image: Codex records it and the model receives it",
       %{opts: opts, work: work} do
    png = Path.join(work, "dot.png")

    File.write!(
      png,
      <<137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 1, 0, 0, 0, 1, 8,
        2, 0, 0, 0, 144, 119, 83, 222, 0, 0, 0, 12, 73, 68, 65, 84, 120, 156, 99, 248, 207, 192,
        0, 0, 3, 1, 1, 0, 201, 254, 146, 239, 0, 0, 0, 0, 73, 69, 78, 68, 174, 66, 96, 130>>
    )

    marker = "elixir-image-#{System.unique_integer([:positive])}"
    {:ok, c} = CodexClient.start_link(opts ++ [events: :typed])
    {:ok, thread} = CodexClient.thread_start(c)

    {:ok, _} =
      CodexClient.turn_start(c, thread, [{:text, "MOCK_TEXT: #{marker}"}, {:local_image, png}])

    events = collect_typed(c)
    assert %Event.TurnCompleted{status: :completed} = List.last(events), typed_report(c, events)

    # Codex recorded both parts of the user's message, in order.
    assert [
             %Item.UserMessage{
               content: [%{"type" => "text"}, %{"type" => "localImage", "path" => ^png}]
             }
           ] = for(%Event.ItemCompleted{item: %Item.UserMessage{} = i} <- events, do: i)

    # The model got the image: an input_image part in the request that carries the marker.
    [req] = for r <- model_requests(), JSON.encode!(r["input"]) =~ marker, do: r

    parts =
      for %{"content" => content} <- req["input"], is_list(content), part <- content, do: part

    assert Enum.any?(parts, &(&1["type"] == "input_image")),
           "no input_image in the user's message #{JSON.encode!(List.last(req["input"]))}"

    :ok = CodexClient.stop(c)

    # A part turn_start does not know is refused, nothing sent.
    {:ok, c} = CodexClient.start_link(opts)
    {:ok, thread} = CodexClient.thread_start(c)
    assert {:error, {:invalid_argument, msg}} = CodexClient.turn_start(c, thread, [{:video, "x"}])
    assert msg =~ ":video"
    :ok = CodexClient.stop(c)
  end

  test "Event.decode/1 and Item.decode/1: known shapes typed, unknown kinds and methods kept raw" do
    ref = make_ref()

    assert %Event.PermissionsApproval{
             request: ^ref,
             item_id: "i1",
             cwd: "/w",
             permissions: %{"network" => %{"enabled" => true}},
             reason: "needs the network"
           } =
             Event.decode(
               {:codex_request, ref, "item/permissions/requestApproval",
                ~s({"threadId":"t","turnId":"u","itemId":"i1","cwd":"/w","startedAtMs":1,) <>
                  ~s("permissions":{"network":{"enabled":true}},"reason":"needs the network"})}
             )

    assert %Event.Request{
             request: ^ref,
             method: "item/tool/requestUserInput",
             params: %{"x" => 1}
           } = Event.decode({:codex_request, ref, "item/tool/requestUserInput", ~s({"x":1})})

    assert %Event.Notification{method: "thread/new/thing", params: %{"a" => [1]}} =
             Event.decode({:codex_event, "thread/new/thing", ~s({"a":[1]})})

    assert %Event.ItemCompleted{
             item: %Item.Unknown{type: "webSearch", id: "w", raw: %{"query" => "q"}}
           } =
             Event.decode(
               {:codex_event, "item/completed",
                ~s({"threadId":"t","turnId":"u","item":{"type":"webSearch","id":"w","query":"q"}})}
             )

    assert %Item.Reasoning{summary: ["s"], content: []} =
             Item.decode(%{
               "type" => "reasoning",
               "id" => "r",
               "summary" => ["s"],
               "content" => []
             })

    assert %Item.Unknown{type: nil, raw: 42} = Item.decode(42)
    # A status this version does not know stays the server's string.
    assert %Event.TurnCompleted{status: "paused", error: nil} =
             Event.decode(
               {:codex_event, "turn/completed",
                ~s({"threadId":"t","turn":{"id":"u","status":"paused"}})}
             )

    assert %Event.Disconnected{reason: "gone", stderr_tail: "tail"} =
             Event.decode({:codex_disconnected, "gone", "tail"})

    assert %Event.Overflow{dropped: 3} = Event.decode({:codex_overflow, 3})
    assert_raise ArgumentError, fn -> Event.decode({:something_else}) end
  end

  test "an approval arrives as a message; accepted -> the command ran", %{opts: opts, work: work} do
    {:ok, c} = CodexClient.start_link(opts)
    {:ok, thread} = CodexClient.thread_start(c)
    file = Path.join(work, "accepted.txt")
    {:ok, _} = CodexClient.turn_start(c, thread, "MOCK_EXEC: echo approved-command-ran > #{file}")

    {events, status} = collect_turn(c, :approve)
    assert status == "completed", turn_report(c, events)

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

    {events, status} = collect_turn(c)
    assert status == "completed", turn_report(c, events)
    assert File.exists?(first)

    # The rule now allows `touch …`: the same kind of command runs without asking.
    second = Path.join(work, "amended-2.txt")
    {:ok, _} = CodexClient.turn_start(c, thread, "MOCK_EXEC: touch #{second}")
    {events, status} = collect_turn(c)
    assert status == "completed", turn_report(c, events)
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
    assert status == "completed", turn_report(c, events)
    assert for({:codex_request, _, _} = r <- events, do: r) == []
    refute File.exists?(file)
    :ok = CodexClient.stop(c)

    {:ok, c} = CodexClient.start_link(opts ++ [transport: "stdio"])
    {:ok, thread} = CodexClient.thread_start(c)
    {:ok, _} = CodexClient.turn_start(c, thread, "MOCK_EXEC: touch #{file}")
    {events, status} = collect_turn(c, :approve)
    assert status == "completed", turn_report(c, events)

    assert [{:codex_request, "item/commandExecution/requestApproval", _}] =
             for({:codex_request, _, _} = r <- events, do: r)

    assert File.exists?(file)
    :ok = CodexClient.stop(c)

    Process.flag(:trap_exit, true)

    assert {:error, {:invalid_argument, msg}} =
             CodexClient.start_link(opts ++ [transport: "carrier-pigeon"])

    assert msg =~ "carrier-pigeon"
  end

  test "approve_for_session runs the command; cancel interrupts the turn", %{
    opts: opts,
    work: work
  } do
    {:ok, c} = CodexClient.start_link(opts)
    {:ok, thread} = CodexClient.thread_start(c)
    file = Path.join(work, "session.txt")
    {:ok, _} = CodexClient.turn_start(c, thread, "MOCK_EXEC: echo for-session > #{file}")
    {events, status} = collect_turn(c, :approve_for_session)
    assert status == "completed", turn_report(c, events)
    assert File.read!(file) == "for-session\n"

    {:ok, thread2} = CodexClient.thread_start(c)
    cancelled = Path.join(work, "cancelled.txt")
    {:ok, _} = CodexClient.turn_start(c, thread2, "MOCK_EXEC: echo cancelled > #{cancelled}")
    {events, status} = collect_turn(c, :cancel)

    assert [{:codex_request, "item/commandExecution/requestApproval", _}] =
             for({:codex_request, _, _} = r <- events, do: r)

    assert status == "interrupted", turn_report(c, events)
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
    assert status == "interrupted", turn_report(c, events)
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
      {events, status} = collect_turn(c)
      assert status == "completed", turn_report(c, events)
      file = Path.join(work, "sched.txt")
      {:ok, _} = CodexClient.turn_start(c, thread, "MOCK_EXEC: echo x > #{file}")
      {events, status} = collect_turn(c, :approve)
      assert status == "completed", turn_report(c, events)
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
