defmodule CodexClient.Event do
  @moduledoc """
  Typed events: the messages of `CodexClient` as structs to pattern-match on.

  Two ways to get them:

    * start the client with `events: :typed`: the owner then receives every event as
      `{:codex, struct}` (notifications, server requests and connection reports alike, in the
      order the server produced them);
    * or keep the raw messages (the default, `events: :raw`) and call `decode/1` on the ones
      you want typed: `CodexClient.Event.decode({:codex_event, method, params_json})`.

  What each message becomes:

  | raw message | struct |
  | --- | --- |
  | `turn/started` | `TurnStarted` (`thread_id`, `turn_id`, `status`) |
  | `turn/completed` | `TurnCompleted` (`status`: `:completed`, `:interrupted`, `:failed`; `error`: a `CodexClient.TurnError` or `nil`; `items`) |
  | `item/started`, `item/completed` | `ItemStarted`, `ItemCompleted` (`item`: a `CodexClient.Item` struct; unknown kinds are `CodexClient.Item.Unknown`) |
  | `item/agentMessage/delta` | `AgentMessageDelta` (`item_id`, `delta`) |
  | `error` | `Error` (`error`: a `CodexClient.TurnError`, `will_retry`) |
  | any other notification | `Notification` (`method`, `params`) |
  | `item/commandExecution/requestApproval` | `CommandApproval` |
  | `item/fileChange/requestApproval` | `FileChangeApproval` |
  | `item/permissions/requestApproval` | `PermissionsApproval` |
  | any other server request | `Request` (`method`, `params`) |
  | `{:codex_disconnected, reason, stderr_tail}` | `Disconnected` |
  | `{:codex_error, message}` | `ConnectionError` |
  | `{:codex_overflow, dropped}` | `Overflow` |

  Every struct of a notification or server request keeps its decoded `params` map under
  `:raw` (lossless: fields not named here are still there). Statuses are atoms for the known
  values (`:completed`, `:interrupted`, `:failed`, `:in_progress`, `:declined`), the server's
  string otherwise.

  A request struct carries the request handle under `:request`; answer it with
  `CodexClient.approve/2`, `approve_for_session/2`, `decline/2`, `cancel/2`,
  `approve_with_execpolicy_amendment/3` (command approvals) or `respond/3` (a permissions
  request is answered with the permissions granted, `%{"permissions" => ..., "scope" =>
  "turn"}`): each takes the struct or its `:request`. Unanswered requests are declined when
  their handle is garbage collected, as in raw mode.
  """

  alias CodexClient.{Item, JSON, TurnError}

  defmodule TurnStarted do
    @moduledoc "`turn/started`."
    defstruct [:thread_id, :turn_id, :status, :raw]
  end

  defmodule TurnCompleted do
    @moduledoc """
    `turn/completed`: `status` (`:completed`, `:interrupted`, `:failed`, or the server's
    string), `error` (a `CodexClient.TurnError` when the turn failed, else `nil`), `items` (the
    turn's items the server included, as `CodexClient.Item` structs; often `[]`).
    """
    defstruct [:thread_id, :turn_id, :status, :error, items: [], raw: nil]
  end

  defmodule ItemStarted do
    @moduledoc "`item/started`: `item` is a `CodexClient.Item` struct."
    defstruct [:thread_id, :turn_id, :item, :raw]
  end

  defmodule ItemCompleted do
    @moduledoc "`item/completed`: `item` is a `CodexClient.Item` struct, in its final state."
    defstruct [:thread_id, :turn_id, :item, :raw]
  end

  defmodule AgentMessageDelta do
    @moduledoc "`item/agentMessage/delta`: the next piece (`delta`) of the agent message `item_id`."
    defstruct [:thread_id, :turn_id, :item_id, :delta, :raw]
  end

  defmodule Error do
    @moduledoc """
    The `error` notification: a turn's error (`error`, a `CodexClient.TurnError`);
    `will_retry` true when Codex retries by itself.
    """
    defstruct [:thread_id, :turn_id, :error, :will_retry, :raw]
  end

  defmodule Notification do
    @moduledoc """
    A notification `decode/1` has no struct for: `method` and `params` (the decoded JSON; the
    JSON text itself in the one case it could not be decoded).
    """
    defstruct [:method, :params]
  end

  defmodule CommandApproval do
    @moduledoc """
    `item/commandExecution/requestApproval`: the agent asks to run `command` in `cwd`.
    `proposed_execpolicy_amendment` is the rule Codex proposes (a list of words) or `nil`.
    Answer with `CodexClient.approve/2` and friends (see `CodexClient.Event`).
    """
    defstruct [
      :request,
      :thread_id,
      :turn_id,
      :item_id,
      :command,
      :cwd,
      :reason,
      :proposed_execpolicy_amendment,
      :raw
    ]
  end

  defmodule FileChangeApproval do
    @moduledoc """
    `item/fileChange/requestApproval`: the agent asks to apply the patch of item `item_id`
    (its changes came with that item's `ItemStarted`). Answer with `CodexClient.approve/2`
    and friends.
    """
    defstruct [:request, :thread_id, :turn_id, :item_id, :reason, :grant_root, :raw]
  end

  defmodule PermissionsApproval do
    @moduledoc """
    `item/permissions/requestApproval`: the agent asks for `permissions` (the decoded
    permission profile) in `cwd`. Answer with `CodexClient.respond/3` and the permissions you
    grant (`%{"permissions" => granted, "scope" => "turn"}`); unanswered, nothing is granted.
    """
    defstruct [:request, :thread_id, :turn_id, :item_id, :cwd, :permissions, :reason, :raw]
  end

  defmodule Request do
    @moduledoc """
    A server request `decode/1` has no struct for (a question, an elicitation, ...): answer it
    with `CodexClient.respond/3`.
    """
    defstruct [:request, :method, :params]
  end

  defmodule Disconnected do
    @moduledoc "The connection ended: `reason` and the last lines of the server's stderr."
    defstruct [:reason, :stderr_tail]
  end

  defmodule ConnectionError do
    @moduledoc "A connection report (a line that is not JSON-RPC, ...); the connection goes on."
    defstruct [:message]
  end

  defmodule Overflow do
    @moduledoc "`dropped` notifications were shed because the owner fell far behind."
    defstruct [:dropped]
  end

  @type t ::
          %TurnStarted{}
          | %TurnCompleted{}
          | %ItemStarted{}
          | %ItemCompleted{}
          | %AgentMessageDelta{}
          | %Error{}
          | %Notification{}
          | %CommandApproval{}
          | %FileChangeApproval{}
          | %PermissionsApproval{}
          | %Request{}
          | %Disconnected{}
          | %ConnectionError{}
          | %Overflow{}

  @doc """
  Decodes a raw message of `CodexClient` (`{:codex_event, method, params_json}`,
  `{:codex_request, request, method, params_json}`, `{:codex_disconnected, reason, tail}`,
  `{:codex_error, message}`, `{:codex_overflow, dropped}`) into its struct. A `{:codex,
  struct}` message (from `events: :typed`) gives its struct back. Raises `ArgumentError` for
  any other term.
  """
  @spec decode(tuple) :: t
  def decode({:codex, event}) when is_struct(event), do: event

  def decode({:codex_event, method, json}) when is_binary(method) do
    case params(json) do
      {:ok, p} -> notification(method, p)
      :error -> %Notification{method: method, params: json}
    end
  end

  def decode({:codex_request, req, method, json}) when is_binary(method) do
    case params(json) do
      {:ok, p} -> request(req, method, p)
      :error -> %Request{request: req, method: method, params: json}
    end
  end

  def decode({:codex_disconnected, reason, tail}),
    do: %Disconnected{reason: reason, stderr_tail: tail}

  def decode({:codex_error, message}), do: %ConnectionError{message: message}
  def decode({:codex_overflow, dropped}), do: %Overflow{dropped: dropped}

  def decode(other),
    do: raise(ArgumentError, "not a CodexClient message: #{inspect(other, limit: 5)}")

  @doc """
  A wire status as an atom (`"inProgress"` -> `:in_progress`, `"completed"`, `"interrupted"`,
  `"failed"`, `"declined"`); any other value is returned as it is.
  """
  @spec status(term) :: atom | term
  def status("completed"), do: :completed
  def status("interrupted"), do: :interrupted
  def status("failed"), do: :failed
  def status("inProgress"), do: :in_progress
  def status("declined"), do: :declined
  def status(other), do: other

  # The core parsed the JSON before handing it over: a decode failure would be this module's
  # bug, and the raw text is kept rather than the event lost.
  defp params(json) when is_binary(json) do
    {:ok, JSON.decode!(json)}
  rescue
    _ -> :error
  end

  defp params(nil), do: {:ok, nil}

  defp notification(method, p) when not is_map(p), do: %Notification{method: method, params: p}

  defp notification("turn/started", p) do
    turn = map(p["turn"])

    %TurnStarted{
      thread_id: p["threadId"],
      turn_id: turn["id"],
      status: status(turn["status"]),
      raw: p
    }
  end

  defp notification("turn/completed", p) do
    turn = map(p["turn"])

    %TurnCompleted{
      thread_id: p["threadId"],
      turn_id: turn["id"],
      status: status(turn["status"]),
      error: TurnError.decode(turn["error"]),
      items: Enum.map(List.wrap(turn["items"]), &Item.decode/1),
      raw: p
    }
  end

  defp notification("item/started", p),
    do: %ItemStarted{
      thread_id: p["threadId"],
      turn_id: p["turnId"],
      item: Item.decode(p["item"]),
      raw: p
    }

  defp notification("item/completed", p),
    do: %ItemCompleted{
      thread_id: p["threadId"],
      turn_id: p["turnId"],
      item: Item.decode(p["item"]),
      raw: p
    }

  defp notification("item/agentMessage/delta", p) do
    %AgentMessageDelta{
      thread_id: p["threadId"],
      turn_id: p["turnId"],
      item_id: p["itemId"],
      delta: p["delta"],
      raw: p
    }
  end

  defp notification("error", %{"error" => %{}} = p) do
    %Error{
      thread_id: p["threadId"],
      turn_id: p["turnId"],
      error: TurnError.decode(p["error"]),
      will_retry: p["willRetry"] == true,
      raw: p
    }
  end

  defp notification(method, p), do: %Notification{method: method, params: p}

  defp request(req, "item/commandExecution/requestApproval", %{} = p) do
    %CommandApproval{
      request: req,
      thread_id: p["threadId"],
      turn_id: p["turnId"],
      item_id: p["itemId"],
      command: p["command"],
      cwd: p["cwd"],
      reason: p["reason"],
      proposed_execpolicy_amendment: p["proposedExecpolicyAmendment"],
      raw: p
    }
  end

  defp request(req, "item/fileChange/requestApproval", %{} = p) do
    %FileChangeApproval{
      request: req,
      thread_id: p["threadId"],
      turn_id: p["turnId"],
      item_id: p["itemId"],
      reason: p["reason"],
      grant_root: p["grantRoot"],
      raw: p
    }
  end

  defp request(req, "item/permissions/requestApproval", %{} = p) do
    %PermissionsApproval{
      request: req,
      thread_id: p["threadId"],
      turn_id: p["turnId"],
      item_id: p["itemId"],
      cwd: p["cwd"],
      permissions: p["permissions"],
      reason: p["reason"],
      raw: p
    }
  end

  defp request(req, method, p), do: %Request{request: req, method: method, params: p}

  defp map(%{} = m), do: m
  defp map(_), do: %{}
end

defmodule CodexClient.TurnError do
  @moduledoc """
  A turn's error (`turn/completed`'s `turn.error`, the `error` notification's `error`):
  `message`, `codex_error_info` (Codex's classification, a string or a map, e.g.
  `"internalServerError"`), `additional_details` (for the exec transport: the tail of `codex
  exec`'s stderr), `raw` (the decoded JSON).
  """
  defstruct [:message, :codex_error_info, :additional_details, :raw]

  @type t :: %__MODULE__{
          message: String.t() | nil,
          codex_error_info: term,
          additional_details: term,
          raw: map
        }

  @doc "Decodes a turn error (a decoded JSON map); `nil` for `nil`."
  @spec decode(term) :: t | nil
  def decode(nil), do: nil

  def decode(%{} = e) do
    %__MODULE__{
      message: e["message"],
      codex_error_info: e["codexErrorInfo"],
      additional_details: e["additionalDetails"],
      raw: e
    }
  end

  def decode(other), do: %__MODULE__{message: inspect(other), raw: other}
end
