"""Checksums of the real-data source files (generated from ``SOURCES.md`` of the shared copies).

Each entry: path under the real-data folder -> ``(repository, commit, path in repository, bytes,
sha256)``.  ``bytes``/``sha256`` are ``None`` where the file was not available when the table was
made (its checksum is unknown; such files are accepted only with a warning in the metadata).
"""

from __future__ import annotations

# fmt: off
SOURCE_FILES: dict[str, tuple[str, str, str, int | None, str | None]] = {
    'cdcsg/abalone.txt': (
        'LawrenceZhao9676/CD-CSG', '22e944d345b1610b0fdeff26a09246cf5b5c1227',
        'real-world data/abalone.txt', 187696,
        '8d8964eaf552285f24acfd39cd25c88b2a0ed45378f47c920a94b435e33d3ef3',
    ),
    'cdcsg/abalone_gt.txt': (
        'LawrenceZhao9676/CD-CSG', '22e944d345b1610b0fdeff26a09246cf5b5c1227',
        'real-world data/abalone_gt.txt', 136,
        'a0be85fe6af56fb845ded65466f12afc7f2ba0bd4e5a41a9ff195dedc4daf79d',
    ),
    'cdcsg/autompg.txt': (
        'LawrenceZhao9676/CD-CSG', '22e944d345b1610b0fdeff26a09246cf5b5c1227',
        'real-world data/autompg.txt', 6711,
        '75e12c253a86eea80bc2f736957fa375bbd13ed601e6be2607556ceced55b47d',
    ),
    'cdcsg/autompg_gt.txt': (
        'LawrenceZhao9676/CD-CSG', '22e944d345b1610b0fdeff26a09246cf5b5c1227',
        'real-world data/autompg_gt.txt', 36,
        '25fbde4253f18ce581fcbee97ce89c9b23cbbceb23f6de91dcd6efe3ba637e98',
    ),
    'cdcsg/cad.txt': (
        'LawrenceZhao9676/CD-CSG', '22e944d345b1610b0fdeff26a09246cf5b5c1227',
        'real-world data/cad.txt', 7225,
        '9ad5e8ceba479f5b25902fb750a3373128d730de5ca3d2a6126f025942d2e66a',
    ),
    'cdcsg/cad_gt.txt': (
        'LawrenceZhao9676/CD-CSG', '22e944d345b1610b0fdeff26a09246cf5b5c1227',
        'real-world data/cad_gt.txt', 36,
        '58e270f46123e5b60dbeed0c38c245330bf3dbb2f819072b2b26a2be00ae07f8',
    ),
    'cdcsg/concrete.txt': (
        'LawrenceZhao9676/CD-CSG', '22e944d345b1610b0fdeff26a09246cf5b5c1227',
        'real-world data/concrete.txt', 58887,
        'c4ffee1fc68a182a10f11f510be7185871f4cfae40301c650b26b350ac106b3e',
    ),
    'cdcsg/concrete_gt.txt': (
        'LawrenceZhao9676/CD-CSG', '22e944d345b1610b0fdeff26a09246cf5b5c1227',
        'real-world data/concrete_gt.txt', 171,
        '61080a8d9185f7e6376a2545902eb8e70c5be2a8f83302a86b7b05651f702635',
    ),
    'cdcsg/dwd.txt': (
        'LawrenceZhao9676/CD-CSG', '22e944d345b1610b0fdeff26a09246cf5b5c1227',
        'real-world data/dwd.txt', 9238,
        '2636ebec05c805068ae6488828ed03488cfd5db9117abc857c3ad38dfc16614f',
    ),
    'cdcsg/dwd_gt.txt': (
        'LawrenceZhao9676/CD-CSG', '22e944d345b1610b0fdeff26a09246cf5b5c1227',
        'real-world data/dwd_gt.txt', 55,
        '482c9b87ee1117dbd2f59df0ebd336326bf8f41a699e4d752dbd748816b5370d',
    ),
    'cdcsg/ozone.txt': (
        'LawrenceZhao9676/CD-CSG', '22e944d345b1610b0fdeff26a09246cf5b5c1227',
        'real-world data/ozone.txt', 23009,
        '47670f1e366f8114a3f1628feee464f3be29a5640a482d83b7fd5c83799c7317',
    ),
    'cdcsg/ozone_gt.txt': (
        'LawrenceZhao9676/CD-CSG', '22e944d345b1610b0fdeff26a09246cf5b5c1227',
        'real-world data/ozone_gt.txt', 36,
        '25fbde4253f18ce581fcbee97ce89c9b23cbbceb23f6de91dcd6efe3ba637e98',
    ),
    'chambers/adjacency_lt_camera.csv': (
        'juangamella/causal-chamber-package', '9fb5d82e391bb91a89a64f2e1c9b6ae8e7aed6d6',
        'causalchamber/ground_truth/adjacencies/adjacency_lt_camera.csv', 4153,
        'f500d4be9f225dd2fc8aeaad7e8dd233a7452080d8010407cadfe55acce34a56',
    ),
    'chambers/adjacency_lt_standard.csv': (
        'juangamella/causal-chamber-package', '9fb5d82e391bb91a89a64f2e1c9b6ae8e7aed6d6',
        'causalchamber/ground_truth/adjacencies/adjacency_lt_standard.csv', 3453,
        '753c1376140cbab550b395c05b84dca152e7118a2b9a2587616dd12292bcee22',
    ),
    'chambers/adjacency_wt_pressure-control.csv': (
        'juangamella/causal-chamber-package', '9fb5d82e391bb91a89a64f2e1c9b6ae8e7aed6d6',
        'causalchamber/ground_truth/adjacencies/adjacency_wt_pressure-control.csv', 2617,
        '904f986255359450baa7af2fe5f8e9cdf7cf416000048d3c24801e583fe450cb',
    ),
    'chambers/adjacency_wt_standard.csv': (
        'juangamella/causal-chamber-package', '9fb5d82e391bb91a89a64f2e1c9b6ae8e7aed6d6',
        'causalchamber/ground_truth/adjacencies/adjacency_wt_standard.csv', 2617,
        '05088000010c094b9f6a29bcb62d67b154507395e54441ee7748eaf5ecd5024d',
    ),
    'chambers/directory.yaml': (
        'juangamella/causal-chamber', '2f059123f4ac6f4724338154825630bf4ab74ac0',
        'datasets/directory.yaml', 3977,
        'c814acc3847a913fac25033aa884bc3457f022cf03f4210f47d341bb85582931',
    ),
    'chambers/lt_interventions_standard_v1_variables.csv': (
        'juangamella/causal-chamber', '2f059123f4ac6f4724338154825630bf4ab74ac0',
        'datasets/lt_interventions_standard_v1/variables.csv', 2701,
        '49dd226bc7318d390f2e76283d70f2d08fde58b1a831864080d3f5bc7376622d',
    ),
    'chambers/wt_walks_v1_variables.csv': (
        'juangamella/causal-chamber', '2f059123f4ac6f4724338154825630bf4ab74ac0',
        'datasets/wt_walks_v1/variables.csv', 2323,
        'c390a658ec50f4cd66062d7e0d4990b74b22faca197a8cd80c95cb17dde5904e',
    ),
    'petshop/high_traffic/graph.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/graph.csv', 10873,
        '8d1f7c34ad22f50d4fe201149856e55509dc9e5e06215341410e71a83fc36cdc',
    ),
    'petshop/high_traffic/noissue/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/noissue/metrics.csv', 2223691,
        '70396bba0040e45fbfc8d2edc2053ae08939c5fbaeb04259fa50aa57b35474fd',
    ),
    'petshop/high_traffic/test/issue_0/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_0/metrics.csv', 33607,
        '18e2e22fcb9f87996b89f4c80e8472c2b23abd25b6b2fef5949a0ab1cf5c866c',
    ),
    'petshop/high_traffic/test/issue_0/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_0/target.json', 453,
        'a593454f92cb51e56c340d8512b91ce9467ccc50ce58901dd464491db374540b',
    ),
    'petshop/high_traffic/test/issue_1/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_1/metrics.csv', 33887,
        'f768078ffa1a2cfb0ca48f112b5f0746406327cade9febaa4131359ead5d915d',
    ),
    'petshop/high_traffic/test/issue_1/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_1/target.json', 453,
        '2d39466a37f207dc21c5f0bacd03e02507cae4ced2d2198d03ea6535557ce37d',
    ),
    'petshop/high_traffic/test/issue_10/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_10/metrics.csv', 31684,
        '4feb9d9d132e5130d1748d8a450c94e68fad25d9e42c9454a14fdf1e65eab3b4',
    ),
    'petshop/high_traffic/test/issue_10/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_10/target.json', 306,
        'e4ee3f83bf941750747bb3221b9ad5990940f77b3fe55721c76ab67e717219a0',
    ),
    'petshop/high_traffic/test/issue_11/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_11/metrics.csv', 34475,
        'f206cbeee0d198dba4b984e91dddd9d6ee965b955138e151f54713a75e3a27f7',
    ),
    'petshop/high_traffic/test/issue_11/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_11/target.json', 460,
        '25422c894169cda8bd47b44432fe5d20cc5d26ef1f155053b9dc14f712dac2b6',
    ),
    'petshop/high_traffic/test/issue_12/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_12/metrics.csv', 32418,
        'a89f02ff5009bdceb986ec42facb0b5bd25eded3e3cd81e432d126cbb23c986c',
    ),
    'petshop/high_traffic/test/issue_12/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_12/target.json', 306,
        '6dfef4503ca7465a8868fccd98c4371062d92c883814100019636aee2552d87a',
    ),
    'petshop/high_traffic/test/issue_13/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_13/metrics.csv', 34163,
        'a72db847d28239f3bffadde92efd2af945c7ddb9261cb553e08ba9fdd0e25d9b',
    ),
    'petshop/high_traffic/test/issue_13/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_13/target.json', 460,
        '173306dbe08d8eeb706027795cd136771fc3eb8f4c47cd8c1e7f76b3b5d9786c',
    ),
    'petshop/high_traffic/test/issue_14/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_14/metrics.csv', 33739,
        '828f8c8671ddbc628991c63d185219ceeafc05f4d0439e897f9a1ca2b64c9ef6',
    ),
    'petshop/high_traffic/test/issue_14/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_14/target.json', 312,
        '148f5add4627003bae5d99e136802e5ea11c021d23824f2c1de11513e584e16d',
    ),
    'petshop/high_traffic/test/issue_15/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_15/metrics.csv', 34282,
        '2f4aaa4f8ef5d7d44d1618378c3bf8c96f383554598766c8b2701a06e2ded473',
    ),
    'petshop/high_traffic/test/issue_15/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_15/target.json', 312,
        '8a299894d96527e188a2ef70a0eaf87ebeddc3e7a619b1beadbfb62548a5ddf8',
    ),
    'petshop/high_traffic/test/issue_16/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_16/metrics.csv', 34317,
        'f061151594e7fca568c4f268c60234bb1d30aa2ec96626285c284cfa29bbc749',
    ),
    'petshop/high_traffic/test/issue_16/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_16/target.json', 312,
        '96ee1e73aeaaa6444933d23e7f473fa848f4a0a3749c7fecad05c60a543948d0',
    ),
    'petshop/high_traffic/test/issue_17/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_17/metrics.csv', 33940,
        '3c4b81ee144908a4ca3627763c7c484c1b54d5ffbae81d173e44c55dcc5c3942',
    ),
    'petshop/high_traffic/test/issue_17/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_17/target.json', 312,
        '8865bad324ea0a2353df88bb251aa7fb55f93d6e6cbfc25ed14e2bfb20c56a8f',
    ),
    'petshop/high_traffic/test/issue_2/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_2/metrics.csv', 34116,
        'b3d703029d12642ba98733fe97c14be3e7ce1df84a68fb03426d74becb3fc124',
    ),
    'petshop/high_traffic/test/issue_2/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_2/target.json', 453,
        '8447a9de6f433c72ad8db41f6c09caf0e7745ad9e525ac6fbc5c2e8e41fb8750',
    ),
    'petshop/high_traffic/test/issue_3/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_3/metrics.csv', 33989,
        'ad5ff48e3e507b657a873878fd9ddb3ca3036d4129b26130430373a50291e6de',
    ),
    'petshop/high_traffic/test/issue_3/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_3/target.json', 271,
        '878f94cce26064cebb12022b8415898a63bf21d4ea46d98a9fccfb5602b7e306',
    ),
    'petshop/high_traffic/test/issue_4/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_4/metrics.csv', 34343,
        '94b76515ee51e775cecfbc662ea3c798c76dd3dfd1722f8cb6a9a98ff6ccabc3',
    ),
    'petshop/high_traffic/test/issue_4/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_4/target.json', 453,
        '06b2bc0a2d1c596015c13bda46567b06ae8ad907d0b80c07a9dbcf203dc26c53',
    ),
    'petshop/high_traffic/test/issue_5/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_5/metrics.csv', 33977,
        '344523efd39bddce96e11e2d3e6b8bf5f161835a13f8204f5da9b06c64030ee3',
    ),
    'petshop/high_traffic/test/issue_5/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_5/target.json', 271,
        '1ebe258dcd5a3187364fe6d743abe7820cb4b325bafcc5cc1e8dea21495c039c',
    ),
    'petshop/high_traffic/test/issue_6/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_6/metrics.csv', 33917,
        'fcc8a79a8b767c18bd2ba8800fcb293b18eb303e74afde2848eeb331c766607a',
    ),
    'petshop/high_traffic/test/issue_6/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_6/target.json', 300,
        'aa2be959525268cc9d7456fc346d6a86901d6a653892f647b1767fe53cc6e806',
    ),
    'petshop/high_traffic/test/issue_7/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_7/metrics.csv', 33780,
        '1c073d3228d6b9920ca5e16b4348d066bf8a7d9fe90ba05219f89e01d7a3f926',
    ),
    'petshop/high_traffic/test/issue_7/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_7/target.json', 300,
        'a9d1523b07cf28d05e81f48fd7b6b57de9c0f2c30b6286ae522df38e01c3f486',
    ),
    'petshop/high_traffic/test/issue_8/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_8/metrics.csv', 34042,
        '8d1cb77606bfa3861eb8e30e91e720a05b724f646ab82940e2dd6f4e73b7d58a',
    ),
    'petshop/high_traffic/test/issue_8/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_8/target.json', 300,
        'c1d2cb6213496a69cd4814d92af8ddd2252c2b02426fe0aa809e5f8a83bcf866',
    ),
    'petshop/high_traffic/test/issue_9/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_9/metrics.csv', 34063,
        '5dbd3ea7c622e290b92ab64dc7dd608abd0eeaec79b782a9db6a24d6fb6d5a71',
    ),
    'petshop/high_traffic/test/issue_9/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/test/issue_9/target.json', 300,
        '6df7073e8affe289f1e7d7f8588af9638dafc15272a00eec170ac26d7aab27d6',
    ),
    'petshop/high_traffic/train/issue_0/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/train/issue_0/metrics.csv', 33775,
        'b84ee86a66b63ec385007a594f30e4ca79894209562b062d216b6bd142ef09b1',
    ),
    'petshop/high_traffic/train/issue_0/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/train/issue_0/target.json', 295,
        '6b89ae397dcf680a079c27df494c998454ce987d58971f186668fff8f76ef074',
    ),
    'petshop/high_traffic/train/issue_1/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/train/issue_1/metrics.csv', 34153,
        '84b58339906bd7646641928da374b0abde75797fc72dc0fe8900dcdfcc24abe6',
    ),
    'petshop/high_traffic/train/issue_1/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/train/issue_1/target.json', 294,
        '89de415d34eea48d42bc9d06b350f17cad20c8b77783572b025f8b251bf074df',
    ),
    'petshop/high_traffic/train/issue_2/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/train/issue_2/metrics.csv', 34515,
        'fb80ee95c996c389d810742e4010eeffd1a73fc3bf31f58c079eed8b9136b492',
    ),
    'petshop/high_traffic/train/issue_2/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/train/issue_2/target.json', 294,
        'dd499b8eb19675212452b45e2c5edb32d104e7557bcadbc7c530ff79a42e6a09',
    ),
    'petshop/high_traffic/train/issue_3/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/train/issue_3/metrics.csv', 33541,
        'c2d99ffe58f7751d3f0b93bf3d39d827d988cc18ea42cbc22044e5b2c97f5ac1',
    ),
    'petshop/high_traffic/train/issue_3/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/train/issue_3/target.json', 295,
        '36b72a17f24c6f99772f84ff88d9ff469df435f633bac73c308200b492edd3d8',
    ),
    'petshop/high_traffic/train/issue_4/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/train/issue_4/metrics.csv', 34185,
        'b28634b73ffadc8a3ab834615dc62d032b257d47d9a2f644847fe9eb3aca6314',
    ),
    'petshop/high_traffic/train/issue_4/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/train/issue_4/target.json', 304,
        '496ff014917de3f8b29ec0090a1ce8f1e7b4fe9727a40612c88ae869606444a9',
    ),
    'petshop/high_traffic/train/issue_5/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/train/issue_5/metrics.csv', 34465,
        'e66e5b738e071b5bc8e10b2b7068475b1c1f9d643ed588bb16fa52662a5a48fb',
    ),
    'petshop/high_traffic/train/issue_5/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/train/issue_5/target.json', 304,
        'd686feae4b18ae93fa0924d490a23312d6010b64e73bfe27a134ddc5d01ab24f',
    ),
    'petshop/high_traffic/train/issue_6/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/train/issue_6/metrics.csv', 34587,
        '29d5bf141d0b05cc4c82c8de491d3c66a08a106b626a17ea44e58c28fa86e58e',
    ),
    'petshop/high_traffic/train/issue_6/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/train/issue_6/target.json', 304,
        '40077c05a69ac514909960b66df012b57ac4d993d27eef319fb1e655d2445e4f',
    ),
    'petshop/high_traffic/train/issue_7/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/train/issue_7/metrics.csv', 34548,
        '760ae69d8af4a8863775c8462519ecb1a97754a29efb3914121b44c05f9a57af',
    ),
    'petshop/high_traffic/train/issue_7/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/high_traffic/train/issue_7/target.json', 304,
        '8c87e3a32a52372e6b76b73790f1782c2e036436ae13d0bfe4bfbf60f8f0d938',
    ),
    'petshop/low_traffic/graph.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/graph.csv', 10047,
        '8b14487ad2d8c5c518e1012157ab0711ff14e712167310f4170b7118b6b9182b',
    ),
    'petshop/low_traffic/noissue/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/noissue/metrics.csv', 2095230,
        '2b71704c2f02e4bf7fc3f5f792a8c5c0635bd5a2acfbaf2a6ab02a3de71aa469',
    ),
    'petshop/low_traffic/test/issue_0/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_0/metrics.csv', 33109,
        '50e38f529082569d41386a863e27491908773bad879975149baa0ade06137dfa',
    ),
    'petshop/low_traffic/test/issue_0/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_0/target.json', 271,
        '6b032851ae05869b59c6b5b852c28fd938a2224fef31d4a8f55460c9ecfdd444',
    ),
    'petshop/low_traffic/test/issue_1/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_1/metrics.csv', 32131,
        '71021d394314a674184f9fec12fa12c6ade26160faf7b09766f1801defcdad8a',
    ),
    'petshop/low_traffic/test/issue_1/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_1/target.json', 453,
        '6380d603eef6347f1384c43fd08aa9fc8989fd25b71eecadce293f5987a95ab2',
    ),
    'petshop/low_traffic/test/issue_10/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_10/metrics.csv', 32560,
        '85e4f9efa10f4585505806117a3eb57d4d926fdd5fd249165f708e09ddacdef0',
    ),
    'petshop/low_traffic/test/issue_10/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_10/target.json', 312,
        '294988c5e44b414b7fa6a18acfa23c687cab85165f522c81f59b2316c83607d8',
    ),
    'petshop/low_traffic/test/issue_11/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_11/metrics.csv', 32335,
        'a6b0ef829e849eb391fb0c5a0f8f16c1cf623d611a4aea7d33b46367cc070146',
    ),
    'petshop/low_traffic/test/issue_11/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_11/target.json', 312,
        '57137a5e23db5a3668269a676b0704b2801ac8ddd78644993b544a3e77f86ae7',
    ),
    'petshop/low_traffic/test/issue_12/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_12/metrics.csv', 30389,
        '49f91f8e48605b6c444c2827cd2ab07d553a5760d7523dfeaed8e1408649cd68',
    ),
    'petshop/low_traffic/test/issue_12/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_12/target.json', 306,
        '974b78d84894c9d9d9c2de5d183d589df7bcb733b75017d2cd92867ad190f94a',
    ),
    'petshop/low_traffic/test/issue_13/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_13/metrics.csv', 32437,
        '84f47485c4c6143ec9dddda5a9e2e27a30462b4274a0958137f9a4c1561e6f51',
    ),
    'petshop/low_traffic/test/issue_13/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_13/target.json', 312,
        '2f93968014651385aa851ea7d8d0738b538c02b4a957c7df343608fb9fdd635a',
    ),
    'petshop/low_traffic/test/issue_14/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_14/metrics.csv', 33789,
        '036f99ceab7a9a8619955c8cf607adb3413e95b613af2a57ab41ab4fff4d805b',
    ),
    'petshop/low_traffic/test/issue_14/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_14/target.json', 460,
        '3644c187127694a8b26a3fc152b053362f0a9907b16d7531638355b557830eac',
    ),
    'petshop/low_traffic/test/issue_15/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_15/metrics.csv', 33323,
        '0cadb86bb64e978fb487a200d2e5e61a927a3d2642f3e30e92017a9d698d4184',
    ),
    'petshop/low_traffic/test/issue_15/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_15/target.json', 460,
        'ba694d6c10b6d832ed6a5c35661f8d71023f0a2d77c67d648b52ee9d6bae32e7',
    ),
    'petshop/low_traffic/test/issue_16/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_16/metrics.csv', 31167,
        '090958f30a7132f2c3c119162a07b1f507c11a7fb91b67b57d8dc64818e6a447',
    ),
    'petshop/low_traffic/test/issue_16/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_16/target.json', 306,
        'c5dc688d2ff477206c94eb898b8d6478160503cc52591619fa73bb97bbf3c9fd',
    ),
    'petshop/low_traffic/test/issue_17/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_17/metrics.csv', 32798,
        '5cbf5349be1002ac59eeca12258a161e1223389204352295c1d467940a854111',
    ),
    'petshop/low_traffic/test/issue_17/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_17/target.json', 312,
        '5ece9cc52348d6523103c23fd60ec4a9a0323ed1ce43bda49a6bc72344ac8229',
    ),
    'petshop/low_traffic/test/issue_2/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_2/metrics.csv', 32626,
        'd055aa00a7d01e2cb7d40267d95b737d407785ff22af4192207ff929b7add52b',
    ),
    'petshop/low_traffic/test/issue_2/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_2/target.json', 300,
        '89af453f8639f74f6ab149f961ff51b86e96346c658592f53a4285ec90a493b8',
    ),
    'petshop/low_traffic/test/issue_3/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_3/metrics.csv', 32482,
        'da2d13bf01a5015f1545a06835c6e46eedaa6e3a367ef2325e8f32392f67d306',
    ),
    'petshop/low_traffic/test/issue_3/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_3/target.json', 300,
        'a73d40ee6e78d6b3be0a97e5ef38922cf27b3d32873481b98d8f9eda163ec6c0',
    ),
    'petshop/low_traffic/test/issue_4/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_4/metrics.csv', 32230,
        'da3026fc5afee06844ac44786c9975263565a450d6260a4121ed71cd1a8a6e6e',
    ),
    'petshop/low_traffic/test/issue_4/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_4/target.json', 300,
        '0e102ce0f2b178110a1f6550ccc1b4ab4d687b67cad5a148145bac81173cf82e',
    ),
    'petshop/low_traffic/test/issue_5/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_5/metrics.csv', 33012,
        '9a1bebd09ae65cc492c117f6e50702a8d104d6685c6a0db9e3e51614bb53af88',
    ),
    'petshop/low_traffic/test/issue_5/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_5/target.json', 453,
        'f91228c34bb5d0edf37b86e005b0cb6279f7207e6ed881fc7875690c6d5ac941',
    ),
    'petshop/low_traffic/test/issue_6/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_6/metrics.csv', 32672,
        '7d437877dfc995dc1dc0618a96e80421ce9357a3002e015b3982f079220a6aae',
    ),
    'petshop/low_traffic/test/issue_6/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_6/target.json', 271,
        '3fcfa988ab81b6648cba0415ad7bf66b5adcea042edc5c9420fe668c6c77bfaf',
    ),
    'petshop/low_traffic/test/issue_7/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_7/metrics.csv', 32047,
        'b82a04c2bc780e92ceec7502fd91bb9fced060d1024ab447ac1694eea5992a60',
    ),
    'petshop/low_traffic/test/issue_7/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_7/target.json', 453,
        '0fc59cdb73c4281fe7fef55f2bb3eacdc1412d816570ccb2573ef427d8a0c9ca',
    ),
    'petshop/low_traffic/test/issue_8/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_8/metrics.csv', 32974,
        '970a17cf5949f38827f89834815bc6b1da65d9b354df0993342dabc6cee83c9e',
    ),
    'petshop/low_traffic/test/issue_8/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_8/target.json', 453,
        '56cbecfc4af9fa486d9727163e48369cc1ee9e655c7c547091ff432b7aebfa4b',
    ),
    'petshop/low_traffic/test/issue_9/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_9/metrics.csv', 32642,
        'b64b5b6362b93ad0386707cdb20332c70c747887151154acd3e4b4279355d8c5',
    ),
    'petshop/low_traffic/test/issue_9/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/test/issue_9/target.json', 300,
        '3dca29c150c6f386e8e3b7688d6a397dba0e7b4109517331c27a1592e5686b18',
    ),
    'petshop/low_traffic/train/issue_0/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/train/issue_0/metrics.csv', 33244,
        '2af4fbb7e4d5c7b11be1e4f50d26b60a6555c251ebc66d1d358d4e764aebdc9d',
    ),
    'petshop/low_traffic/train/issue_0/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/train/issue_0/target.json', 295,
        '7fc20c6cb9e7683396c8208ca0254624af4c9c1491d6f66c2f7bfe662088f36d',
    ),
    'petshop/low_traffic/train/issue_1/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/train/issue_1/metrics.csv', 33388,
        '493a179c24632b385443ef1dd58236a3ddd4f6893edf2d1c9fc3cba6ab9c92df',
    ),
    'petshop/low_traffic/train/issue_1/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/train/issue_1/target.json', 294,
        'acd738ff158f6ebef2ad996bec0a0395d8cb83dc0ec50976223d9ebe74bffec8',
    ),
    'petshop/low_traffic/train/issue_2/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/train/issue_2/metrics.csv', 32561,
        'f5a3e088a3ebee987c4548a2fa83cfb09e10c137bf85b87d14f7738e295369e3',
    ),
    'petshop/low_traffic/train/issue_2/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/train/issue_2/target.json', 295,
        '03e555e09ce0e97165bac75d94ea999f4c84caa73c7afac4a6174309c3aaff1a',
    ),
    'petshop/low_traffic/train/issue_3/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/train/issue_3/metrics.csv', 33259,
        'a45931775aa9de30fcbeb2bcbce8adee1a358836756f6509de2128a10abb17c7',
    ),
    'petshop/low_traffic/train/issue_3/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/train/issue_3/target.json', 294,
        '94f2fd71007d6cd3cdc0269de2330a972b32288eed86a734f5795c8fc1ebebb9',
    ),
    'petshop/low_traffic/train/issue_4/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/train/issue_4/metrics.csv', 32990,
        '18f85ce245e740187a9c24b012f3c291645bb9daae66481f25900b092fd08392',
    ),
    'petshop/low_traffic/train/issue_4/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/train/issue_4/target.json', 304,
        '24132bd8b00b47ba47829eebde191e91ed26ef59c2b8bd74c4b5c68f4b4cab04',
    ),
    'petshop/low_traffic/train/issue_5/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/train/issue_5/metrics.csv', 33601,
        'ba48a65920be7076bdf531c8e39bf7bc08958a1709cf4dfb2a2cc47d235581eb',
    ),
    'petshop/low_traffic/train/issue_5/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/train/issue_5/target.json', 304,
        '2fbac5a6c691a50092094b9eb738bdbe200fe0d33702e6ed902db0c64d628580',
    ),
    'petshop/low_traffic/train/issue_6/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/train/issue_6/metrics.csv', 33016,
        '8aee14a72bfa8e8b9c29b5404c7053a7d8367744b3cebde012489f169e7464fc',
    ),
    'petshop/low_traffic/train/issue_6/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/train/issue_6/target.json', 304,
        '9f80aa0e4b699fb99d668acbfe1dcfab35f4df76e61ea1b17a3bda328ac7965a',
    ),
    'petshop/low_traffic/train/issue_7/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/train/issue_7/metrics.csv', 33504,
        'aa6f714f0aa1f9592af7b24d397769a8d833fb53b9d6b4056e942ee13d758802',
    ),
    'petshop/low_traffic/train/issue_7/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/low_traffic/train/issue_7/target.json', 304,
        'ad9e5a8d6cdc2b72f8297db09aaa256bf1be0a47d2a0a8cce2d512ae9e918abf',
    ),
    'petshop/temporal_traffic1/graph.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic1/graph.csv', 9621,
        '10ddbc07b2beb2e4746c270b3f5ddf8c7728510160ed91bfe6056fdff31a8af0',
    ),
    'petshop/temporal_traffic1/noissue/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic1/noissue/metrics.csv', None,
        None,
    ),
    'petshop/temporal_traffic1/test/issue_0/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic1/test/issue_0/metrics.csv', 32498,
        'c967e363b6828fd0b86e155bf56b86d7b7613ca9ba19ca7bee2c3db9cada9e01',
    ),
    'petshop/temporal_traffic1/test/issue_0/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic1/test/issue_0/target.json', 301,
        '60ae93a474519dbffb2f0512824598e27d75258dbdc123dfcb10a2bc021746ef',
    ),
    'petshop/temporal_traffic1/test/issue_1/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic1/test/issue_1/metrics.csv', 32974,
        '8cca1f030635fb502f26f5132d4f57952bef143bafcba210fc9bb64488893738',
    ),
    'petshop/temporal_traffic1/test/issue_1/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic1/test/issue_1/target.json', 271,
        '0779333510129a96470d150b998b9c629c9d977c3b9ef64043383e3e28f0d152',
    ),
    'petshop/temporal_traffic1/test/issue_2/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic1/test/issue_2/metrics.csv', 32129,
        'e91735f930951ca2be8b212391b3c7ece3f83c72d24bbabd571284d46e2fd218',
    ),
    'petshop/temporal_traffic1/test/issue_2/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic1/test/issue_2/target.json', 454,
        '8b4f2dad5bc9f2595e27c90cd2ac733a62f2b6bbfb3d7225c0e78f019b0666be',
    ),
    'petshop/temporal_traffic1/test/issue_3/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic1/test/issue_3/metrics.csv', 30970,
        'c2abf7bce9e0fd953e6998000107ac28e786fff173aa3345ddd37a78c9e6811d',
    ),
    'petshop/temporal_traffic1/test/issue_3/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic1/test/issue_3/target.json', 306,
        'c69ff96e404494835401749557cd62bd45454cb5fa04ac70ef2ed84100589657',
    ),
    'petshop/temporal_traffic1/test/issue_4/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic1/test/issue_4/metrics.csv', 32716,
        '042a70fe9a9c5d53a10aa55d70572828dc7804382208afd759ee83525d3e93fc',
    ),
    'petshop/temporal_traffic1/test/issue_4/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic1/test/issue_4/target.json', 313,
        '5bac5d0668b1f380460ff8af89f772aac891cfd05647d41f0fbc6848676791a4',
    ),
    'petshop/temporal_traffic1/test/issue_5/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic1/test/issue_5/metrics.csv', 33659,
        '11eb39dd49748a005d0dab6c19461b84788188e33e1cf329b1dd142602ab819a',
    ),
    'petshop/temporal_traffic1/test/issue_5/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic1/test/issue_5/target.json', 460,
        '7b40ba5a03e67da02a886329e153743e64fc8a3382e7e287a8a0930b180e8216',
    ),
    'petshop/temporal_traffic1/train/issue_0/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic1/train/issue_0/metrics.csv', 31456,
        'b63bce41db64220b0aec36a3b1160c321d82f67d80962c8ea8e1965e15ff41f3',
    ),
    'petshop/temporal_traffic1/train/issue_0/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic1/train/issue_0/target.json', 295,
        'fae396255ae61db6e0222c1f26be987bd473215064229729f653db201cdb09c6',
    ),
    'petshop/temporal_traffic1/train/issue_1/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic1/train/issue_1/metrics.csv', 32013,
        '3089a506b442e153ff0e01e9c98278d0eabd7a07a5f81a1624c98d1610efb192',
    ),
    'petshop/temporal_traffic1/train/issue_1/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic1/train/issue_1/target.json', 304,
        'cf8807936ac2bd3c58024c8d8a07bf0b03986deeabc8427ac6c78ad39d9f4cf4',
    ),
    'petshop/temporal_traffic2/graph.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic2/graph.csv', 9621,
        '50a5eda47dc3a436de582d391d8075f6343b8ee4fee2303badf63ee688117853',
    ),
    'petshop/temporal_traffic2/noissue/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic2/noissue/metrics.csv', None,
        None,
    ),
    'petshop/temporal_traffic2/test/issue_0/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic2/test/issue_0/metrics.csv', 32513,
        '96e977754ebc41531571649dfd7337c6ab21a0c77084ca81803b6b43d536cbf1',
    ),
    'petshop/temporal_traffic2/test/issue_0/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic2/test/issue_0/target.json', 271,
        '8bd28376ce07169d35cadbf980cd947270360b4c6a567226b675b8ce991322bc',
    ),
    'petshop/temporal_traffic2/test/issue_1/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic2/test/issue_1/metrics.csv', 33029,
        'bdabd71745f04a78e0a57317c33147a9b86f9aa737e832a7df37cd5f43045697',
    ),
    'petshop/temporal_traffic2/test/issue_1/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic2/test/issue_1/target.json', 454,
        '34687d4cae639543cf0a45b14af5a5a6cfd7408ec76526dda7fce65947a5d9c8',
    ),
    'petshop/temporal_traffic2/test/issue_2/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic2/test/issue_2/metrics.csv', 32528,
        '18de60bade745fe7c3ce0d8c69fdc4a0c8dd6feba1885cae6e5e1654e0e9ac1b',
    ),
    'petshop/temporal_traffic2/test/issue_2/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic2/test/issue_2/target.json', 301,
        'a8cc4cb084ff305fe95767dbaa31488d0815955221c3f0d62a8d16abf1311bc1',
    ),
    'petshop/temporal_traffic2/test/issue_3/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic2/test/issue_3/metrics.csv', 31841,
        'f5e4df344970ad7b15acea947bd24e5fbfb86fc125e66c8f59540a9442239eac',
    ),
    'petshop/temporal_traffic2/test/issue_3/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic2/test/issue_3/target.json', 460,
        '5a278e8fbbd57d22a67834c5831040076cd47e2f691a6653854d65ee1afee596',
    ),
    'petshop/temporal_traffic2/test/issue_4/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic2/test/issue_4/metrics.csv', 32987,
        '3dea36201f61043b2048a45ef902fcb4373c6bce7b3261eeb5995d3d481948e6',
    ),
    'petshop/temporal_traffic2/test/issue_4/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic2/test/issue_4/target.json', 313,
        '13c162c2ba8a50c9c5cf79c0ab83e18cebde42607d92461fc62eaa8516380401',
    ),
    'petshop/temporal_traffic2/test/issue_5/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic2/test/issue_5/metrics.csv', 31299,
        'c9699cd9b310d2eb47ace08621df7baca8ef963478380096efb50ab135555812',
    ),
    'petshop/temporal_traffic2/test/issue_5/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic2/test/issue_5/target.json', 306,
        'bab0f25fdbac549a09748ea92bede50fe4804e89fe4b1c38e15c3c8ba8e1c69d',
    ),
    'petshop/temporal_traffic2/train/issue_0/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic2/train/issue_0/metrics.csv', 31939,
        '78774c38826e7d7f23a2e9e6654c9ffe98641ccbc38b4296067eea3422b00b53',
    ),
    'petshop/temporal_traffic2/train/issue_0/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic2/train/issue_0/target.json', 295,
        '377f46b5e6abee4ffd5995aef328be7cbf03d69aba81ca114292e92d03e3abb1',
    ),
    'petshop/temporal_traffic2/train/issue_1/metrics.csv': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic2/train/issue_1/metrics.csv', 33330,
        'bc8c6df79b1aeffa750b0b59c73d97f62768c013e8fa2f639570fb589a0a41c1',
    ),
    'petshop/temporal_traffic2/train/issue_1/target.json': (
        'amazon-science/petshop-root-cause-analysis', '1c5992dc46a02c988a027e2219036d59e8158a91',
        'dataset/temporal_traffic2/train/issue_1/target.json', 304,
        'ceb3650355efc44ad01f8b7ed43ac9e56b0e153a9891f08b4a4ae9b2891e0cc0',
    ),
    'sachs/aci_sachs_14conditions.tsv': (
        'caus-am/aci', '3ffea4804e07146ed239a76a8490e009999aec78',
        'experiments/sachs/data/sachs.csv', 624059,
        'bad7c5167c6f6b66fa335bfa17ecb7b4c379d72cf490929e5ad57a6289315f46',
    ),
    'sachs/aci_safe_choice.exps': (
        'caus-am/aci', '3ffea4804e07146ed239a76a8490e009999aec78',
        'experiments/sachs/exps/safe_choice.exps', 158,
        '683c526237b024d8f1e16a4b5e2fa7c055e542834f3fdf8f85ff29d39d6cf63e',
    ),
    'sachs/aci_safe_choice_icam.exps': (
        'caus-am/aci', '3ffea4804e07146ed239a76a8490e009999aec78',
        'experiments/sachs/exps/safe_choice_icam.exps', 202,
        'd652b7f8835380f34374a0fd7e28c3b83e3ec1f703ad20c0152f70ef9ffe681b',
    ),
    'sachs/aci_safe_choice_icam_more.exps': (
        'caus-am/aci', '3ffea4804e07146ed239a76a8490e009999aec78',
        'experiments/sachs/exps/safe_choice_icam_more.exps', 253,
        '79cc0dca4d50b690b38ab8aff803c8ddb32e5bc2b64da9ad155184ffb437e893',
    ),
    'sachs/aci_safe_choice_more.exps': (
        'caus-am/aci', '3ffea4804e07146ed239a76a8490e009999aec78',
        'experiments/sachs/exps/safe_choice_more.exps', 208,
        '621b156f4f03612647fda9985291e14dcb41bef1b19122efe8f055ca091a5b12',
    ),
    'sachs/bnlearn_sachs.bif': (
        'erdogant/bnlearn', 'df2b7f2489f802220e55436cbd714e5b63d7a9ac',
        'bnlearn/data/SACHS/sachs.bif', 5734,
        'b7bd3931192f9e529f0f88bba15fca6cc61ba3c805d5c8ae57eba57ed3b332ec',
    ),
    'sachs/bnlearn_sachs_info.txt': (
        'erdogant/bnlearn', 'df2b7f2489f802220e55436cbd714e5b63d7a9ac',
        'bnlearn/data/SACHS/info.txt', 401,
        '190b4f1e9c418a554a2d66bf0efedfba5f66ecf0cfc3ad861d55a56ac8810ca6',
    ),
    'sachs/cdt_cyto_full_data.csv': (
        'FenTechSolutions/CausalDiscoveryToolbox', 'd0bc352534dcbfac19a84a1bb05f33fe311378d2',
        'cdt/data/resources/cyto_full_data.csv', 427677,
        'fc331dcd0bc1d8765986b88cd1d23dd5a3f52e4ffc299fdf96de9d522ddf01aa',
    ),
    'sachs/cdt_cyto_full_target.csv': (
        'FenTechSolutions/CausalDiscoveryToolbox', 'd0bc352534dcbfac19a84a1bb05f33fe311378d2',
        'cdt/data/resources/cyto_full_target.csv', 267,
        '398bc137b2669432ef12e0c57d3783fa876c1c7e2377577d3e75410f085485f6',
    ),
    'sachs/cmu_sachs.2005.ground.truth.graph.txt': (
        'cmu-phil/example-causal-datasets', 'a23adc349a23fc34d258193b45c60522ca6355b4',
        'real/sachs/ground.truth/sachs.2005.ground.truth.graph.txt', 391,
        '2406ec0f9cd34bcbcd33fb74282386232330a630dba68c0f2d01a0d985a652b9',
    ),
    'sachs/cmu_sachs.2005.logxplus10.with.experiment.indicators.txt': (
        'cmu-phil/example-causal-datasets', 'a23adc349a23fc34d258193b45c60522ca6355b4',
        'real/sachs/data/sachs.2005.continuous.discrete.experimental.mixed.maximum.2.txt', 700171,
        'c1c4b12bdbb2c5411f7410fa65792a3191500e4b5276df2f7d1bf35a41a42c71',
    ),
    'sachs/cmu_tiers.knowledge.txt': (
        'cmu-phil/example-causal-datasets', 'a23adc349a23fc34d258193b45c60522ca6355b4',
        'real/sachs/ground.truth/tiers.knowledge.txt', 162,
        'e792bf456562dd126e24f4f1003f0739d630fff76373f58e4d28b19fa194e245',
    ),
    'sachs/jci_sachs-gt.dot': (
        'caus-am/jci', '8c3d1535c589344e31dd00cacf6eece0474451a2',
        'experiments/sachs/sachs-gt.dot', 798,
        'e7a17fcc93671f0cf00ea69600e5dccd49bca3845012e87bbb9ade3509d885b4',
    ),
}
# fmt: on
