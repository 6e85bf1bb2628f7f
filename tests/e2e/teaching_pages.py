"""What the teaching pages' browser tests share: each page's titles and how many figures it draws,
and a Chinese text the random model can read."""

PAGES = {  # url path → (English title, Chinese title, plotly figures on the page)
    "positional": ("Positional encoding", "位置编码", 8),
    "layernorm": ("LayerNorm", "层归一化（LayerNorm）", 8),
    "step_by_step": ("Attention, step by step", "注意力，一步一步", 6),
    "architecture": ("Architecture overview", "模型结构总览", 1),
}
CHINESE = "今天天气很好"  # every character is in the random model's vocabulary
