defmodule CodexClient.JSON do
  @moduledoc """
  A small JSON encoder/decoder, so the example needs no Hex package (Elixir 1.14 and OTP 25
  ship none). Event params arrive as JSON text; decode them with `decode!/1`.
  """

  @doc "Encodes maps (atom or string keys), lists, strings, numbers, booleans and nil."
  def encode!(v), do: IO.iodata_to_binary(enc(v))

  defp enc(nil), do: "null"
  defp enc(true), do: "true"
  defp enc(false), do: "false"
  defp enc(v) when is_atom(v), do: enc(Atom.to_string(v))
  defp enc(v) when is_integer(v), do: Integer.to_string(v)
  defp enc(v) when is_float(v), do: Float.to_string(v)
  defp enc(v) when is_binary(v), do: [?", escape(v, []), ?"]
  defp enc(v) when is_list(v), do: [?[, Enum.map_intersperse(v, ?,, &enc/1), ?]]

  defp enc(v) when is_map(v),
    do: [?{, Enum.map_intersperse(v, ?,, fn {k, x} -> [enc(to_string(k)), ?:, enc(x)] end), ?}]

  defp escape(<<>>, acc), do: Enum.reverse(acc)
  defp escape(<<?", r::binary>>, acc), do: escape(r, ["\\\"" | acc])
  defp escape(<<?\\, r::binary>>, acc), do: escape(r, ["\\\\" | acc])
  defp escape(<<?\n, r::binary>>, acc), do: escape(r, ["\\n" | acc])
  defp escape(<<?\r, r::binary>>, acc), do: escape(r, ["\\r" | acc])
  defp escape(<<?\t, r::binary>>, acc), do: escape(r, ["\\t" | acc])

  defp escape(<<c, r::binary>>, acc) when c < 0x20,
    do: escape(r, [:io_lib.format(~c"\\u~4.16.0b", [c]) | acc])

  defp escape(<<c, r::binary>>, acc), do: escape(r, [c | acc])

  @doc "Decodes JSON text: objects become maps with string keys."
  def decode!(s) when is_binary(s) do
    {v, rest} = value(ws(s))

    case ws(rest) do
      "" -> v
      other -> raise ArgumentError, "trailing JSON text: #{inspect(String.slice(other, 0, 20))}"
    end
  end

  defp ws(<<c, r::binary>>) when c in [?\s, ?\t, ?\n, ?\r], do: ws(r)
  defp ws(s), do: s

  defp value(<<?{, r::binary>>), do: object(ws(r), %{})
  defp value(<<?[, r::binary>>), do: array(ws(r), [])
  defp value(<<?", r::binary>>), do: string(r, [])
  defp value(<<"true", r::binary>>), do: {true, r}
  defp value(<<"false", r::binary>>), do: {false, r}
  defp value(<<"null", r::binary>>), do: {nil, r}
  defp value(s), do: number(s)

  defp object(<<?}, r::binary>>, acc), do: {acc, r}

  defp object(<<?", r::binary>>, acc) do
    {k, r} = string(r, [])
    <<?:, r::binary>> = ws(r)
    {v, r} = value(ws(r))
    acc = Map.put(acc, k, v)

    case ws(r) do
      <<?,, r::binary>> -> object(ws(r), acc)
      <<?}, r::binary>> -> {acc, r}
    end
  end

  defp array(<<?], r::binary>>, acc), do: {Enum.reverse(acc), r}

  defp array(s, acc) do
    {v, r} = value(s)

    case ws(r) do
      <<?,, r::binary>> -> array(ws(r), [v | acc])
      <<?], r::binary>> -> {Enum.reverse([v | acc]), r}
    end
  end

  defp string(<<?", r::binary>>, acc), do: {IO.iodata_to_binary(Enum.reverse(acc)), r}

  defp string(<<?\\, ?u, a::binary-size(4), ?\\, ?u, b::binary-size(4), r::binary>> = s, acc) do
    hi = String.to_integer(a, 16)
    lo = String.to_integer(b, 16)

    if hi in 0xD800..0xDBFF and lo in 0xDC00..0xDFFF do
      cp = 0x10000 + Bitwise.bsl(hi - 0xD800, 10) + (lo - 0xDC00)
      string(r, [<<cp::utf8>> | acc])
    else
      <<_::binary-size(6), rest::binary>> = s
      string(rest, [<<hi::utf8>> | acc])
    end
  end

  defp string(<<?\\, ?u, a::binary-size(4), r::binary>>, acc),
    do: string(r, [<<String.to_integer(a, 16)::utf8>> | acc])

  defp string(<<?\\, c, r::binary>>, acc) do
    ch =
      case c do
        ?n -> ?\n
        ?t -> ?\t
        ?r -> ?\r
        ?b -> ?\b
        ?f -> ?\f
        other -> other
      end

    string(r, [ch | acc])
  end

  defp string(s, acc) do
    # Copy a run of plain bytes at once.
    n = plain_len(s, 0)

    if n == 0 do
      <<c, r::binary>> = s
      string(r, [c | acc])
    else
      <<run::binary-size(n), r::binary>> = s
      string(r, [run | acc])
    end
  end

  defp plain_len(s, n) do
    case s do
      <<_::binary-size(n), c, _::binary>> when c != ?" and c != ?\\ -> plain_len(s, n + 1)
      _ -> n
    end
  end

  defp number(s) do
    {num, r} = take_num(s, [])

    v =
      if String.contains?(num, [".", "e", "E"]),
        do: String.to_float(normalize_float(num)),
        else: String.to_integer(num)

    {v, r}
  end

  defp take_num(<<c, r::binary>>, acc) when c in ~c"+-0123456789.eE", do: take_num(r, [c | acc])
  defp take_num(r, acc) when acc != [], do: {acc |> Enum.reverse() |> List.to_string(), r}
  defp take_num(r, _), do: raise(ArgumentError, "bad JSON at #{inspect(String.slice(r, 0, 20))}")

  # "1e5" and "1E5" are not valid Elixir float syntax: make them "1.0e5".
  defp normalize_float(num) do
    if String.contains?(num, "."),
      do: num,
      else: String.replace(num, ~r/[eE]/, ".0e", global: false)
  end
end
