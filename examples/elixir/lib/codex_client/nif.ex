defmodule CodexClient.Nif do
  @moduledoc false
  # The NIF (c_src/codexclient_nif.c). open/2 and disconnect/1 run on dirty-IO schedulers;
  # every other function returns at once (see the comment at the top of the C file).
  @on_load :load

  def load do
    path = :filename.join(:code.priv_dir(:codex_client), ~c"codexclient_nif")
    :erlang.load_nif(path, 0)
  end

  def open(_opts, _owner), do: :erlang.nif_error(:not_loaded)
  def select(_client), do: :erlang.nif_error(:not_loaded)
  def drain(_client, _max, _collect), do: :erlang.nif_error(:not_loaded)
  def request(_client, _method, _params_json, _timeout_ms), do: :erlang.nif_error(:not_loaded)
  def respond(_request, _result_json), do: :erlang.nif_error(:not_loaded)
  def respond_decision(_request, _word), do: :erlang.nif_error(:not_loaded)
  def respond_execpolicy_amendment(_request, _prefix), do: :erlang.nif_error(:not_loaded)
  def server_pid(_client), do: :erlang.nif_error(:not_loaded)
  def stderr_tail(_client), do: :erlang.nif_error(:not_loaded)
  def stop_select(_client), do: :erlang.nif_error(:not_loaded)
  def disconnect(_client), do: :erlang.nif_error(:not_loaded)
  def live_clients, do: :erlang.nif_error(:not_loaded)
end
