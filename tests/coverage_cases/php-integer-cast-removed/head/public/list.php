<?php
$page = $_GET['page'] ?? 1;
$offset = $page * 20;
echo render_page($db, $offset);
